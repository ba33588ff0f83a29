# The driver's entry point, run as any Elixir program is run from the command line:
#
#     elixir -pa ... main.exs [--variant=<name>] describe | run <workload> key=value ...
#
# Everything after main.exs is System.argv(), the driver's arguments.
RingbenchElixir.main()
