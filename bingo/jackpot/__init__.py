"""A hall's progressive jackpot (R9-R13) and the calculator of its odds."""
