// Command validate checks the deployment files of deploy/ offline, with
// no cluster and no Envoy:
//
//	go run . manifests FILE...   Kubernetes manifests (helm template output; - is stdin)
//	go run . envoy FILE          an Envoy v3 bootstrap (deploy/envoy/envoy.yaml)
//
// Each manifest document is decoded strictly into the typed object of its
// apiVersion and kind, as the API server's strict field validation would
// (an unknown or duplicated field, a wrong type or an unknown kind is an
// error), and then checked for what the chart promises: names, selectors
// that match the pod labels, probes and target ports that name container
// ports, mounts that name volumes, a non-root read-only container. The
// Envoy file is decoded with protojson into envoy.config.bootstrap.v3.
// Bootstrap, validated with its protoc-gen-validate rules, and checked
// for the session routing (a hash of mcp-session onto a RING_HASH
// cluster). Every failure is printed, one a line, naming the document
// and the field; the exit status is 1 when there was any.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: validate manifests FILE...   (- reads standard input)
       validate envoy FILE`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var problems []string
	var err error
	switch args[0] {
	case "manifests":
		var docs int
		docs, problems, err = checkManifestFiles(args[1:], stdin)
		if err == nil && len(problems) == 0 {
			fmt.Fprintf(stdout, "validate: %d manifest documents ok\n", docs)
		}
	case "envoy":
		if len(args) != 2 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		problems, err = checkEnvoyFile(args[1])
		if err == nil && len(problems) == 0 {
			fmt.Fprintf(stdout, "validate: %s ok\n", args[1])
		}
	default:
		fmt.Fprintln(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "validate: %v\n", err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "validate: %s\n", p)
	}
	switch len(problems) {
	case 0:
		return 0
	case 1:
		fmt.Fprintln(stderr, "validate: 1 problem")
	default:
		fmt.Fprintf(stderr, "validate: %d problems\n", len(problems))
	}
	return 1
}
