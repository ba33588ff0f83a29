module ringbench/drivers/go

go 1.21

toolchain go1.26.8
