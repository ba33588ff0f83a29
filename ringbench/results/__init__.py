"""What a measurement leaves: the result model, statistics, comparisons, warnings, the store."""
