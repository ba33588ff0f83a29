/* A real allocation failure becomes a `limit` error record (contract section 4), through the hooks
 * the GHC runtime offers for it (GHC User's Guide, "Hooks to change RTS behaviour"):
 *
 *  - OutOfHeapHook: the heap cannot grow (past +RTS -M, or the address space the RTS reserved);
 *  - MallocFailHook: the RTS's own malloc failed;
 *  - errorMsgFn (rts/Messages.h): the RTS reports "out of memory" when mmap refuses to commit
 *    heap memory and then exits with status 251; the record is written and the process exits
 *    with the contract's status 3 first. Every other message goes to the RTS's own printer.
 *
 * The records are written with write(2), straight to the file descriptor: the Haskell side's
 * stdout buffer is empty at these points (every record is flushed as it is made, and nothing is
 * printed inside a phase). No allocation here: the heap is what failed. */
#include <Rts.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void limit_record(const char *what)
{
    char line[512];
    int k = snprintf(line, sizeof line,
                     "{\"type\":\"error\",\"kind\":\"limit\",\"message\":\"memory: %s; "
                     "free memory or lower n\"}\n", what);
    if (k > 0) {
        ssize_t ignored = write(1, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
        (void)ignored;
    }
    _exit(3);
}

void OutOfHeapHook(W_ request_size, W_ heap_size)
{
    char what[256];
    (void)request_size;
    snprintf(what, sizeof what, "the GHC heap cannot grow past %lu bytes (OutOfHeapHook)",
             (unsigned long)heap_size);
    limit_record(what);
}

void MallocFailHook(W_ request_size, const char *msg)
{
    char what[256];
    (void)msg;
    snprintf(what, sizeof what, "the GHC runtime could not malloc %lu bytes (MallocFailHook)",
             (unsigned long)request_size);
    limit_record(what);
}

static RtsMsgFunction *rts_error_printer;

static void error_message(const char *fmt, va_list ap)
{
    if (strncmp(fmt, "out of memory", 13) == 0) {
        char what[256];
        va_list copy;
        va_copy(copy, ap);
        vsnprintf(what, sizeof what, fmt, copy);
        va_end(copy);
        for (char *c = what; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < ' ')
                *c = ' ';
        strncat(what, ": mmap refused to commit heap memory", sizeof what - strlen(what) - 1);
        limit_record(what);
    }
    rts_error_printer(fmt, ap);
}

/* Called once from main, before any workload. */
void ringbench_install_hooks(void)
{
    rts_error_printer = errorMsgFn;
    errorMsgFn = error_message;
}
