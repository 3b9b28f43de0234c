"""The audit trail of staff actions (R61): who sold, drew, confirmed, paid, suspended, corrected,
logged in, and when. ``models`` holds the one table of its own (the actions no other record says
who made); ``selectors`` reads every source at once for the inspector."""
