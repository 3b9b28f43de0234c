"""What the login tells the features above it (docs/architecture.md «Layers»: a lower layer
speaks through a signal, the project connects the receivers in bingo/apps.py)."""

from django.dispatch import Signal

#: Sent by the login form (``LoginForm.confirm_login_allowed``) once the password is right and
#: before the user is logged in, with ``user``. A receiver refuses the login by raising
#: ``django.core.exceptions.ValidationError`` with the reason shown on the login page: the
#: mandatory pause after a session's time limit (R101, bingo/playtime ``play_login_check``).
login_checking = Signal()
