// The driver's development tools, pinned apart from the driver's own module (whose go.mod stays at
// go 1.21 for [installation] builds of older Go releases): staticcheck 2026.2.2 (v0.8.2, the release
// for Go 1.26). The manifest's build installs them into bin/tools (go install tool); check runs them.
module ringbench/drivers/go/tools

go 1.26.0

toolchain go1.26.8

tool honnef.co/go/tools/cmd/staticcheck

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)
