"""What can be measured: the workload catalogue and the drivers found under drivers/."""
