"""Running drivers: launching, checking their records, limits, modes, the runner."""
