defmodule RingbenchElixir.Perf do
  @moduledoc """
  Perf (docs/driver-contract.md, section 11) in Elixir: how a snippet written in Elixir becomes
  the module the BEAM family's perf runner (`:ringbench_perf`) measures. Everything but the
  language is the library's, as for Erlang snippets: the job, erlperf's arity rules, the
  workers, the modes, the counting (call-count tracing of the loop function), the records.

  Each piece of a snippet (runner, init, init_runner, done) is parsed once with
  `Code.string_to_quoted/2` and is one of:

    * an expression, or several (`Enum.sum(1..100)`, `x = :rand.uniform(); x * x`): inlined in
      the loop's body (a hook's value is the last expression's); arity 0;
    * function definitions (`def run(a, s), do: s + a`; more `def`/`defp`, and `import`, `alias`
      and `require`, may come with it): the first definition is the piece, its arity what it
      is given;
    * an anonymous function (`fn a, s -> s + a end`): its clauses become a private function of
      the fn's arity;
    * a reference to an existing function: a capture `&:rand.uniform/0`, `&Enum.sum/1`, or
      erlperf's `{module, function, args}` (arity 0, `apply/3` in the loop).

  Then every piece goes into one module, compiled once with `Code.compile_quoted/2`, whose
  functions are the ones the library calls (`ringbench_perf_loop/0..2`, the runner in an endless
  tail-recursive loop; `ringbench_perf_timed/1..3`, the same counting down;
  `ringbench_perf_init/0`, `ringbench_perf_init_runner/0,1`, `ringbench_perf_done/0,1`). Nothing is
  evaluated per iteration: the loop calls compiled code, local calls within one module.
  """

  @pieces [:runner, :init, :init_runner, :done]

  @doc "The language map `:ringbench_perf.run/2` takes (the driver's `perf_language/0`)."
  def language, do: %{compile: &compile/2, exception: &exception/3}

  @doc """
  Parses every piece of snippet `k` (`code`: UTF-8 binaries, `:none` for a hook not given) and
  returns each one's arity with the fun that builds and loads the module (the library checks
  the arities in between).
  """
  def compile(k, code) do
    parsed =
      for piece <- @pieces, into: %{} do
        case Map.fetch!(code, piece) do
          :none -> {piece, :none}
          text -> {piece, parse(k, piece, text)}
        end
      end

    arities = Map.new(parsed, fn {piece, p} -> {piece, arity(p)} end)
    {arities, fn mod -> build(k, mod, parsed) end}
  end

  @doc "An exception of the user's code in Elixir's own words (its banner, one line)."
  def exception(kind, reason, stack) do
    kind
    |> Exception.format_banner(reason, stack)
    |> String.split("\n", trim: true)
    |> Enum.map_join("; ", &String.trim/1)
    |> String.to_charlist()
  end

  ## Parsing

  defp parse(k, piece, text) do
    file = "snippet #{k}, #{piece}"

    ast =
      try do
        Code.string_to_quoted!(text, file: file, columns: true)
      rescue
        e in [SyntaxError, TokenMissingError] -> bad(first_line(e))
      end

    case ast do
      nil -> bad("#{file}: no code")
      {:__block__, _, []} -> bad("#{file}: no code")
      _ -> classify(file, ast)
    end
  end

  defp classify(file, ast) do
    forms = block(ast)

    if Enum.any?(forms, &definition?/1) and Enum.all?(forms, &module_form?/1) do
      defs(file, forms)
    else
      other(file, ast)
    end
  end

  defp block({:__block__, _, forms}), do: forms
  defp block(form), do: [form]

  defp definition?({kind, _, [_ | _]}) when kind in [:def, :defp], do: true
  defp definition?(_), do: false

  defp module_form?({kind, _, [_ | _]}) when kind in [:import, :alias, :require], do: true
  defp module_form?(form), do: definition?(form)

  # Function definitions (and import, alias, require): the first definition is the piece.
  defp defs(file, forms) do
    {_, _, [head | _]} = Enum.find(forms, &definition?/1)

    case name_and_args(head) do
      {name, args} -> {:defs, name, length(args), forms}
      :error -> bad("#{file}: cannot tell the name and arguments of the first definition")
    end
  end

  defp name_and_args({:when, _, [head | _]}), do: name_and_args(head)
  defp name_and_args({name, _, args}) when is_atom(name) and is_list(args), do: {name, args}
  defp name_and_args({name, _, context}) when is_atom(name) and is_atom(context), do: {name, []}
  defp name_and_args(_), do: :error

  # An anonymous function, a reference, or expressions.
  defp other(_file, {:fn, _, [{:->, _, [args, _]} | _] = clauses}) do
    {:fn, length(fn_args(args)), clauses}
  end

  defp other(_file, {:&, _, [{:/, _, [{{:., _, [mod, fun]}, _, []}, arity]}]})
       when is_atom(fun) and is_integer(arity) do
    {:remote, mod, fun, arity}
  end

  defp other(_file, {:&, _, [{:/, _, [{fun, _, context}, arity]}]})
       when is_atom(fun) and is_atom(context) and is_integer(arity) do
    {:local, fun, arity}
  end

  defp other(_file, {:{}, _, [mod, fun, args]} = mfa)
       when is_atom(fun) and is_list(args) and (is_atom(mod) or elem(mod, 0) == :__aliases__) do
    {:mfa, mfa}
  end

  defp other(_file, ast), do: {:exprs, ast}

  defp fn_args([{:when, _, args_and_guard}]), do: Enum.drop(args_and_guard, -1)
  defp fn_args(args), do: args

  defp arity(:none), do: :none
  defp arity({:exprs, _}), do: 0
  defp arity({:mfa, _}), do: 0
  defp arity({:defs, _, arity, _}), do: arity
  defp arity({:fn, arity, _}), do: arity
  defp arity({:remote, _, _, arity}), do: arity
  defp arity({:local, _, arity}), do: arity

  ## Building: one module, compiled once

  defp build(k, mod, parsed) do
    runner = parsed.runner

    body =
      user_forms(parsed) ++
        hook(:init, parsed.init) ++
        hook(:init_runner, parsed.init_runner) ++
        hook(:done, parsed.done) ++ loops(runner, arity(runner))

    ast =
      quote do
        defmodule unquote(mod) do
          (unquote_splicing(body))
        end
      end

    try do
      [{^mod, _}] = Code.compile_quoted(ast, "snippet #{k}")
      :ok
    rescue
      e in [CompileError, SyntaxError, TokenMissingError, ArgumentError, KeyError] ->
        # the compiler's own words name the file, "snippet k", and the line
        bad(first_line(e))
    end
  end

  # The user's own definitions, then an anonymous function's clauses as a private function.
  defp user_forms(parsed) do
    Enum.flat_map(@pieces, fn piece ->
      case Map.fetch!(parsed, piece) do
        {:defs, _, _, forms} -> forms
        {:fn, _, clauses} -> Enum.map(clauses, &fn_clause(fn_name(piece), &1))
        _ -> []
      end
    end)
  end

  defp fn_name(piece), do: :"ringbench_perf_fn_#{piece}"

  defp fn_clause(name, {:->, _, [[{:when, _, args_and_guard}], body]}) do
    {args, [guard]} = Enum.split(args_and_guard, -1)
    quote do: defp(unquote(name)(unquote_splicing(args)) when unquote(guard), do: unquote(body))
  end

  defp fn_clause(name, {:->, _, [args, body]}) do
    quote do: defp(unquote(name)(unquote_splicing(args)), do: unquote(body))
  end

  # A hook: its expressions are the body; anything else is called with what it is given.
  defp hook(_piece, :none), do: []

  defp hook(piece, {:exprs, ast}) do
    [quote(do: def(unquote(hook_name(piece))(), do: unquote(ast)))]
  end

  defp hook(piece, parsed) do
    args = vars(arity(parsed))
    step = call(callable(parsed, piece), args)
    [quote(do: def(unquote(hook_name(piece))(unquote_splicing(args)), do: unquote(step)))]
  end

  defp hook_name(piece), do: :"ringbench_perf_#{piece}"

  # The runner's loops, erlperf's shapes: the continuous one counted by its calls, the timed one
  # counting down; an expression runner inlined in both, anything else called.
  defp loops(runner, 2) do
    [a, s, n] = [Macro.var(:a, __MODULE__), Macro.var(:s, __MODULE__), Macro.var(:n, __MODULE__)]
    step = call(callable(runner, :runner), [a, s])

    [
      quote do
        def ringbench_perf_loop(unquote(a), unquote(s)),
          do: ringbench_perf_loop(unquote(a), unquote(step))

        def ringbench_perf_timed(0, _, unquote(s)), do: unquote(s)

        def ringbench_perf_timed(unquote(n), unquote(a), unquote(s)),
          do: ringbench_perf_timed(unquote(n) - 1, unquote(a), unquote(step))
      end
    ]
  end

  defp loops(runner, ra) do
    n = Macro.var(:n, __MODULE__)
    args = vars(ra)
    ignored = for _ <- args, do: Macro.var(:_, nil)

    step =
      case runner do
        {:exprs, ast} -> ast
        _ -> call(callable(runner, :runner), args)
      end

    [
      quote do
        def ringbench_perf_loop(unquote_splicing(args)) do
          unquote(step)
          ringbench_perf_loop(unquote_splicing(args))
        end

        def ringbench_perf_timed(0, unquote_splicing(ignored)), do: :ok

        def ringbench_perf_timed(unquote(n), unquote_splicing(args)) do
          unquote(step)
          ringbench_perf_timed(unquote(n) - 1, unquote_splicing(args))
        end
      end
    ]
  end

  # An anonymous function is called as the private function its clauses became.
  defp callable({:fn, arity, _}, piece), do: {:fn_of, fn_name(piece), arity}
  defp callable(other, _piece), do: other

  defp vars(0), do: []
  defp vars(1), do: [Macro.var(:a, __MODULE__)]
  defp vars(2), do: [Macro.var(:a, __MODULE__), Macro.var(:s, __MODULE__)]
  defp vars(k), do: for(i <- 1..k, do: Macro.var(:"a#{i}", __MODULE__))

  defp call({:exprs, ast}, []), do: ast
  defp call({:defs, name, _, _}, args), do: quote(do: unquote(name)(unquote_splicing(args)))
  defp call({:fn_of, name, _}, args), do: quote(do: unquote(name)(unquote_splicing(args)))

  defp call({:remote, mod, fun, _}, args),
    do: quote(do: unquote(mod).unquote(fun)(unquote_splicing(args)))

  defp call({:local, fun, _}, args), do: quote(do: unquote(fun)(unquote_splicing(args)))

  defp call({:mfa, {:{}, _, [mod, fun, margs]}}, []),
    do: quote(do: apply(unquote(mod), unquote(fun), unquote(margs)))

  ## Errors

  defp first_line(e), do: e |> Exception.message() |> String.split("\n") |> hd()

  defp bad(message), do: :ringbench.fail(:bad_param, ~c"~ts", [message])
end
