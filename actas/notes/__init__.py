"""What the caller or the manager records in the session's acta by hand (R61 j), l), m)): a
player's complaint and the decision taken, a later decision on it, an equipment failure, an
occurrence that may involve an offence; on the console, the game's page and the API. The writing
itself is ``actas.services.acta_note_record``; this folder holds its adapters."""
