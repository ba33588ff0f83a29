/* The context switches of the whole driver process (contract 4), for Contract.hs: base and unix
 * offer getrusage's CPU times (System.CPUTime) but not its ru_nvcsw and ru_nivcsw. Called through
 * an unsafe foreign call at the phase boundaries only, outside the clock readings. */
#include <stdint.h>
#include <sys/resource.h>

/* out[0]: voluntary, out[1]: involuntary context switches of every thread of the process so far */
void ringbench_ctx_switches(int64_t out[2])
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        out[0] = out[1] = 0;
        return;
    }
    out[0] = ru.ru_nvcsw;
    out[1] = ru.ru_nivcsw;
}
