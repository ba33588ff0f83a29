module ringbench/drivers/go

go 1.19
