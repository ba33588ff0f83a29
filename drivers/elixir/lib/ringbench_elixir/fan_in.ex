defmodule RingbenchElixir.FanIn do
  @moduledoc """
  fanin: n senders, one receiver; on `:go` each sender sends m messages; the run ends when the
  receiver has all n*m and tells main.

  The receiver is spawned with `message_queue_data: :off_heap`, the setting the documentation
  of `Process.flag/2` (and erlang:process_flag/2) gives for a process many processes send to:
  senders enqueue without taking the receiver's main lock, and its collections do not copy the
  queue. A property of the one process, written in the program, as the Erlang driver does.
  """

  def fanin(%{n: n, m: m}) do
    main = self()

    %{
      setup: fn ->
        gate = :ringbench_ready.counter(n + 1)

        receiver =
          Process.spawn(
            fn ->
              :ringbench_ready.arrive(gate)
              receive_all(n * m, 0, main)
            end,
            message_queue_data: :off_heap
          )

        senders =
          Enum.reduce(1..n, [], fn _, senders ->
            sender =
              spawn(fn ->
                :ringbench_ready.arrive(gate)

                receive do
                  :go -> send_all(receiver, m)
                end
              end)

            [sender | senders]
          end)

        {:ringbench_ready.await(gate), senders}
      end,
      run: fn senders ->
        Enum.each(senders, &send(&1, :go))

        receive do
          {:fanin_done, count} -> count
        end
      end,
      proof: fn count -> count end
    }
  end

  defp send_all(_receiver, 0), do: :ok

  defp send_all(receiver, left) do
    send(receiver, :msg)
    send_all(receiver, left - 1)
  end

  defp receive_all(0, count, main), do: send(main, {:fanin_done, count})

  defp receive_all(left, count, main) do
    receive do
      :msg -> receive_all(left - 1, count + 1, main)
    end
  end
end
