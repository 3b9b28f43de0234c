"""The player's pages as an installable web app (issue 25 point 6): the manifest, the service
worker and the offline page (R99)."""
