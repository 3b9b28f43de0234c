"""Everyone's way in: logging in and out, the home router, each role's dashboard, and the login
lockouts a manager lifts (django-axes)."""
