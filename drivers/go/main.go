// ringbench-go: the Go driver of ringbench (driver contract version 4).
//
//	ringbench-go [--variant=stock|handoff|tuned] describe
//	ringbench-go [--variant=stock|handoff|tuned] run <workload> key=value ...
//
// Processes are goroutines. The stock variant (the default) passes messages
// over unbuffered channels; the handoff variant writes the value into the next
// goroutine's slot and unlocks that goroutine's sync.Mutex (the Benchmarks
// Game thread-ring idiom); the tuned variant is the stock code run with the
// GC settings its manifest sets. See README.md. stdout carries JSON Lines
// only; diagnostics go to stderr.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

const contractVersion = 4

// Variants (driver.toml lists them; the orchestrator passes --variant=...).
const (
	variantStock   = "stock"   // goroutines + unbuffered channels: message passing
	variantHandoff = "handoff" // slot + sync.Mutex per goroutine: a baton hand-off
	variantTuned   = "tuned"   // the stock code; the manifest sets GOGC and GOMEMLIMIT
)

// variant is what this invocation runs and what `describe` reports.
var variant = variantStock

// clock and collector, as `describe` reports them (contract section 4).
const (
	clockText = "runtime nanotime (CLOCK_MONOTONIC, via time.Now); CPU from getrusage (1 µs)"
	collector = "go" // Go has one collector: concurrent mark-sweep, paced by GOGC and GOMEMLIMIT
)

// ---------------------------------------------------------------- output

// rec builds one JSON object with its keys in insertion order.
type rec struct{ b []byte }

func newRec(typ string) *rec {
	r := &rec{b: make([]byte, 0, 256)}
	r.b = append(r.b, `{"type":`...)
	r.b = appendJSONString(r.b, typ)
	return r
}

func (r *rec) key(k string) {
	r.b = append(r.b, ',')
	r.b = appendJSONString(r.b, k)
	r.b = append(r.b, ':')
}

func (r *rec) Int(k string, v int64) *rec {
	r.key(k)
	r.b = strconv.AppendInt(r.b, v, 10)
	return r
}

func (r *rec) Uint(k string, v uint64) *rec {
	r.key(k)
	r.b = strconv.AppendUint(r.b, v, 10)
	return r
}

func (r *rec) Float(k string, v float64) *rec {
	r.key(k)
	r.b = strconv.AppendFloat(r.b, v, 'g', -1, 64)
	return r
}

func (r *rec) Str(k, v string) *rec {
	r.key(k)
	r.b = appendJSONString(r.b, v)
	return r
}

func (r *rec) Strs(k string, vs []string) *rec {
	r.key(k)
	r.b = append(r.b, '[')
	for i, v := range vs {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		r.b = appendJSONString(r.b, v)
	}
	r.b = append(r.b, ']')
	return r
}

// emit writes the record as one line with a single write(2), so records from
// different goroutines (trace) never interleave.
func (r *rec) emit() {
	r.b = append(r.b, '}', '\n')
	if _, err := os.Stdout.Write(r.b); err != nil {
		fmt.Fprintf(os.Stderr, "ringbench-go: cannot write to stdout: %v\n", err)
		os.Exit(1)
	}
}

func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep '<' and '>' readable in messages
	_ = enc.Encode(s)        // a string always encodes
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// Exit codes and error kinds of the contract, section 4.
const (
	kindBadParam        = "bad_param"
	kindUnknownWorkload = "unknown_workload"
	kindUnsupported     = "unsupported"
	kindLimit           = "limit"
	kindFailure         = "failure"
)

func exitCode(kind string) int {
	switch kind {
	case kindBadParam, kindUnknownWorkload, kindUnsupported:
		return 2
	case kindLimit:
		return 3
	default:
		return 1
	}
}

// die prints one error record and exits; nothing is printed after it.
func die(kind, format string, a ...interface{}) {
	msg := fmt.Sprintf(format, a...)
	newRec("error").Str("kind", kind).Str("message", msg).emit()
	os.Exit(exitCode(kind))
}

// ---------------------------------------------------------------- params

type keySpec struct {
	name     string
	min, max int64
	def      int64
	required bool
}

// Common keys (contract section 2) with the bounds of section 6.
var commonKeys = []keySpec{
	{name: "repeats", min: 1, max: 1_000_000, def: 1},
	{name: "warmup", min: 0, max: 1_000_000, def: 0},
	{name: "cores", min: 1, max: 1_024, def: 0},
	{name: "sample_ms", min: 0, max: 86_400_000, def: 0},
	{name: "samples", min: 1, max: 1_000_000, def: 3},
	{name: "stats", min: 0, max: 1, def: 0},
}

const (
	maxN = 100_000_000
	maxM = 1_000_000_000
)

var workloadKeys = map[string][]keySpec{
	"ring": {
		{name: "n", min: 1, max: maxN, required: true},
		{name: "m", min: 1, max: maxM, required: true},
		{name: "tokens", min: 1, max: maxN, def: 1},
		{name: "burst", min: 0, max: 1, def: 0},
	},
	"spawn":    {{name: "n", min: 1, max: maxN, required: true}},
	"pingpong": {{name: "m", min: 1, max: maxM, required: true}},
	"fanin": {
		{name: "n", min: 1, max: maxN, required: true},
		{name: "m", min: 1, max: maxM, required: true},
	},
	"tree": {
		{name: "n", min: 1, max: maxN, required: true},
		{name: "fanout", min: 2, max: 1_000, def: 10},
	},
	"trace": {
		{name: "n", min: 1, max: 100, required: true},
		{name: "m", min: 1, max: 100, required: true},
	},
}

// workloads in the order `describe` lists them. selective is known but
// unsupported: Go channels have no selective receive.
var workloadOrder = []string{"ring", "spawn", "pingpong", "fanin", "tree", "trace"}

type params struct {
	vals  map[string]int64
	given map[string]bool
}

func (p params) get(k string) int64 { return p.vals[k] }
func (p params) int(k string) int   { return int(p.vals[k]) }

// isDecimal: one or more ASCII digits, nothing else (a sign, even "-0", a
// space or a non-ASCII digit is bad_param, contract section 6).
func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func boundsText(ks keySpec) string {
	if ks.max == 1 && ks.min == 0 {
		return "0 or 1"
	}
	return fmt.Sprintf("in %d..%d", ks.min, ks.max)
}

func parseParams(workload string, args []string) params {
	specs := append(append([]keySpec{}, workloadKeys[workload]...), commonKeys...)
	byName := map[string]keySpec{}
	var names []string
	for _, ks := range specs {
		byName[ks.name] = ks
		names = append(names, ks.name)
	}
	p := params{vals: map[string]int64{}, given: map[string]bool{}}
	for _, a := range args {
		eq := strings.IndexByte(a, '=')
		if eq < 0 {
			die(kindBadParam, "argument '%s' is not key=value", a)
		}
		k, v := a[:eq], a[eq+1:]
		ks, ok := byName[k]
		if !ok {
			sort.Strings(names)
			die(kindBadParam, "unknown key '%s' for workload %s (known: %s)", k, workload, strings.Join(names, ", "))
		}
		if p.given[k] {
			die(kindBadParam, "key %s given twice", k)
		}
		if !isDecimal(v) {
			die(kindBadParam, "%s must be a decimal integer %s, got '%s'", k, boundsText(ks), v)
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < ks.min || x > ks.max {
			die(kindBadParam, "%s must be an integer %s, got '%s'", k, boundsText(ks), v)
		}
		p.vals[k] = x
		p.given[k] = true
	}
	// In continuous mode m is ignored and may be left out (section 6).
	continuousRing := workload == "ring" && p.given["sample_ms"] && p.vals["sample_ms"] > 0
	for _, ks := range specs {
		if !p.given[ks.name] {
			if ks.required && !(continuousRing && ks.name == "m") {
				die(kindBadParam, "missing required key %s for workload %s", ks.name, workload)
			}
			p.vals[ks.name] = ks.def
			if ks.required { // m in continuous mode: any valid value, never used
				p.vals[ks.name] = ks.min
			}
		}
	}
	// Cross-key bounds (section 6).
	switch workload {
	case "ring":
		n, m, t := p.get("n"), p.get("m"), p.get("tokens")
		if t > n {
			die(kindBadParam, "tokens must be <= n (%d), got '%d'", n, t)
		}
		if !productBelow62(uint64(n), uint64(m), uint64(t)) {
			die(kindBadParam, "n*m*tokens must be < 2^62, got n=%d m=%d tokens=%d", n, m, t)
		}
	case "fanin":
		if !productBelow62(uint64(p.get("n")), uint64(p.get("m")), 1) {
			die(kindBadParam, "n*m must be < 2^62")
		}
	case "tree":
		n, f := p.get("n"), p.get("fanout")
		for n%f == 0 {
			n /= f
		}
		if n != 1 {
			die(kindBadParam, "tree's n (leaves) must be a power of the fanout %d, got '%d'", f, p.get("n"))
		}
	}
	if workload != "ring" && p.get("sample_ms") > 0 {
		die(kindBadParam, "sample_ms > 0 (continuous mode) applies only to workload ring, not %s", workload)
	}
	return p
}

func productBelow62(a, b, c uint64) bool {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return false
	}
	hi, lo = bits.Mul64(lo, c)
	return hi == 0 && lo < 1<<62
}

// ---------------------------------------------------------------- main

const usage = "usage: ringbench-go [--variant=stock|handoff|tuned] describe | run <workload> key=value ..."

func main() {
	args := os.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		opt := args[0]
		args = args[1:]
		switch {
		case strings.HasPrefix(opt, "--variant="):
			v := strings.TrimPrefix(opt, "--variant=")
			if v != variantStock && v != variantHandoff && v != variantTuned {
				die(kindBadParam, "--variant must be %s, %s or %s, got '%s'", variantStock, variantHandoff, variantTuned, v)
			}
			variant = v
		default:
			die(kindBadParam, "unknown option '%s'; %s", opt, usage)
		}
	}
	if len(args) == 0 {
		die(kindBadParam, "no verb given; %s", usage)
	}
	switch args[0] {
	case "describe":
		if len(args) > 1 {
			die(kindBadParam, "describe takes no arguments; %s", usage)
		}
		newRec("describe").Int("contract", contractVersion).Str("name", "go").
			Str("runtime", "Go").Str("version", runtime.Version()).
			Strs("workloads", workloadOrder).
			Strs("features", []string{"tokens", "continuous", "stats"}).
			Str("variant", variant).Str("clock", clockText).Str("collector", collector).emit()
		os.Exit(0)
	case "run":
		if len(args) < 2 {
			die(kindBadParam, "run needs a workload; %s", usage)
		}
		workload := args[1]
		if workload == "selective" {
			die(kindUnsupported, "Go has no selective receive: a channel receive always takes the oldest message, it cannot skip messages that do not match a pattern (emulating it with per-worker channels or a side buffer would measure something else)")
		}
		if _, ok := workloadKeys[workload]; !ok {
			die(kindUnknownWorkload, "unknown workload '%s' (this driver knows: %s)", workload, strings.Join(workloadOrder, ", "))
		}
		p := parseParams(workload, args[2:])
		applyCores(p)
		run(workload, p)
		os.Exit(0)
	default:
		die(kindBadParam, "unknown verb '%s'; %s", args[0], usage)
	}
}

// applyCores: GOMAXPROCS from the environment (the manifest sets it to
// {cores}) wins; without it, cores= sets the scheduler size.
func applyCores(p params) {
	if os.Getenv("GOMAXPROCS") == "" && p.given["cores"] {
		runtime.GOMAXPROCS(p.int("cores"))
	}
}
