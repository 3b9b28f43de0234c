"""Printing a series' cards: the PDF, direct downloads and print jobs (docs/printing.md)."""
