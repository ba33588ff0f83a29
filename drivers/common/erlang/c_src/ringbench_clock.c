/* The process CPU clock for ringbench_clock:cpu_ns/0: clock_gettime
 * (CLOCK_PROCESS_CPUTIME_ID), user + system time of every thread of the VM,
 * in nanoseconds; and the process's context switches for
 * ringbench_clock:context_switches/0: getrusage(RUSAGE_SELF), voluntary and
 * involuntary, of every thread of the VM, those that have ended included.
 * Read only at the boundaries of the timed phases; the workloads themselves
 * are pure Erlang. Built by build.sh when a C compiler and erl_nif.h
 * (Debian: erlang-dev) are present. */
#include <sys/resource.h>
#include <time.h>
#include <erl_nif.h>

static ERL_NIF_TERM process_cpu_ns(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    struct timespec ts;
    (void)argc;
    (void)argv;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return enif_make_badarg(env);
    return enif_make_int64(env, (ErlNifSInt64)ts.tv_sec * 1000000000LL + (ErlNifSInt64)ts.tv_nsec);
}

static ERL_NIF_TERM process_context_switches(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    struct rusage ru;
    (void)argc;
    (void)argv;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return enif_make_badarg(env);
    return enif_make_tuple2(env, enif_make_int64(env, (ErlNifSInt64)ru.ru_nvcsw),
                            enif_make_int64(env, (ErlNifSInt64)ru.ru_nivcsw));
}

static ErlNifFunc funcs[] = {
    {"process_cpu_ns", 0, process_cpu_ns, 0},
    {"process_context_switches", 0, process_context_switches, 0}
};

ERL_NIF_INIT(ringbench_clock, funcs, NULL, NULL, NULL, NULL)
