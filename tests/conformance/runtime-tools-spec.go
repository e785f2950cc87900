// runtime-tools-spec [--no-seccomp] FILE: the config.json of the OCI
// runtime tools' generator (github.com/opencontainers/runtime-tools/
// generate), as `oci-runtime-tool generate` starts from: generate.New
// ("linux") saved as it is, or without its default seccomp profile.
//
// Built by generate.sh in GOPATH mode against Debian's package
// golang-github-opencontainers-runtime-tools-dev (no module download).
package main

import (
	"fmt"
	"os"

	"github.com/opencontainers/runtime-tools/generate"
)

func main() {
	args := os.Args[1:]
	seccomp := true
	if len(args) > 0 && args[0] == "--no-seccomp" {
		seccomp = false
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runtime-tools-spec [--no-seccomp] FILE")
		os.Exit(2)
	}
	g, err := generate.New("linux")
	if err != nil {
		fmt.Fprintln(os.Stderr, "runtime-tools-spec:", err)
		os.Exit(1)
	}
	if !seccomp {
		g.Config.Linux.Seccomp = nil
	}
	if err := g.SaveToFile(args[0], generate.ExportOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "runtime-tools-spec:", err)
		os.Exit(1)
	}
}
