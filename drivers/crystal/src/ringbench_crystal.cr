# ringbench-crystal: the Crystal driver of ringbench (driver contract version 4).
#
#   ringbench-crystal describe
#   ringbench-crystal run <workload> key=value ...
#
# See src/driver.cr and README.md.
require "./driver"

Ringbench.install_oom_handler
LibGCX.start_performance_measurement # full-collection time for the stats records
Ringbench.main(ARGV)
