package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// good is a minimal set that passes: a Deployment and a Service that
// selects its pods by a named port.
const good = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: bridge, namespace: ns}
spec:
  replicas: 2
  selector:
    matchLabels: {app: bridge}
  template:
    metadata:
      labels: {app: bridge}
    spec:
      containers:
        - name: bridge
          image: mcpbridge:dev
          ports:
            - {name: grpc, containerPort: 50051}
            - {name: health, containerPort: 50052}
          readinessProbe:
            grpc: {port: 50052, service: ""}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
      volumes:
        - name: tmp
          emptyDir: {}
---
apiVersion: v1
kind: Service
metadata: {name: bridge, namespace: ns}
spec:
  selector: {app: bridge}
  ports:
    - {name: grpc, port: 50051, targetPort: grpc}
`

// hpa scales the Deployment of good, and paces its scale-down.
const hpa = `
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: bridge, namespace: ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: bridge}
  minReplicas: 2
  maxReplicas: 6
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 600
      policies:
        - {type: Pods, value: 1, periodSeconds: 300}
    scaleUp:
      stabilizationWindowSeconds: 60
`

// validateManifests runs the manifests command on text given on stdin and
// returns its exit status and stderr.
func validateManifests(t *testing.T, text string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run([]string{"manifests", "-"}, strings.NewReader(text), &stdout, &stderr)
	t.Logf("exit %d\nstdout:\n%sstderr:\n%s", code, stdout.String(), stderr.String())
	return code, stderr.String()
}

func wantProblems(t *testing.T, stderr string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not report %q", w)
		}
	}
}

func TestGoodManifests(t *testing.T) {
	for _, text := range []string{good, good + hpa} {
		if code, _ := validateManifests(t, text); code != 0 {
			t.Fatalf("exit status %d, want 0", code)
		}
	}
}

// TestHPABehavior: an HPA must pace its scale-down, within the API
// server's limits.
func TestHPABehavior(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{{
		name: "no behavior",
		old:  "  behavior:\n    scaleDown:\n      stabilizationWindowSeconds: 600\n      policies:\n        - {type: Pods, value: 1, periodSeconds: 300}\n    scaleUp:\n      stabilizationWindowSeconds: 60\n",
		new:  "",
		want: []string{`document 3 (HorizontalPodAutoscaler bridge): spec.behavior.scaleDown.policies: required`},
	}, {
		name: "a window without policies",
		old:  "      policies:\n        - {type: Pods, value: 1, periodSeconds: 300}\n",
		new:  "",
		want: []string{`spec.behavior.scaleDown.policies: required`},
	}, {
		name: "out of the API's limits",
		old:  "{type: Pods, value: 1, periodSeconds: 300}",
		new:  "{type: Pod, value: 0, periodSeconds: 3600}",
		want: []string{`scaleDown.policies[0].type: "Pod" is not Pods or Percent`, `policies[0].value: 0 must be greater than 0`,
			`policies[0].periodSeconds: 3600 is not between 1 and 1800`},
	}, {
		name: "a window too long",
		old:  "scaleUp:\n      stabilizationWindowSeconds: 60",
		new:  "scaleUp:\n      stabilizationWindowSeconds: 7200",
		want: []string{`spec.behavior.scaleUp.stabilizationWindowSeconds: 7200 is not between 0 and 3600`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(good+hpa, tc.old, tc.new, 1)
			if text == good+hpa {
				t.Fatalf("%q is not in the HPA", tc.old)
			}
			code, stderr := validateManifests(t, text)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			wantProblems(t, stderr, tc.want...)
		})
	}
}

// TestBrokenDeployment is the validator's own check: one Deployment with
// a misspelt field (replica) and a probe on a port the container does not
// declare must fail with both reported, each naming its document and
// field.
func TestBrokenDeployment(t *testing.T) {
	broken := strings.Replace(good, "  replicas: 2\n", "  replica: 3\n", 1)
	broken = strings.Replace(broken, "grpc: {port: 50052", "grpc: {port: 50053", 1)
	if broken == good {
		t.Fatal("the replacements did not apply")
	}
	code, stderr := validateManifests(t, broken)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	wantProblems(t, stderr,
		`-: document 1 (Deployment bridge): strict decoding: unknown field "spec.replica"`,
		`-: document 1 (Deployment bridge): spec.template.spec.containers[0].readinessProbe.grpc.port: 50053 is not a containerPort of this container`,
		"validate: 2 problems",
	)
}

func TestManifestFaults(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{{
		name: "wrong type",
		old:  "replicas: 2",
		new:  `replicas: "2"`,
		want: []string{`document 1 (Deployment bridge)`, `spec.replicas`, `int32`},
	}, {
		name: "case matters",
		old:  "replicas: 2",
		new:  "Replicas: 2",
		want: []string{`unknown field "spec.Replicas"`},
	}, {
		name: "duplicate key",
		old:  "  replicas: 2\n",
		new:  "  replicas: 2\n  replicas: 3\n",
		want: []string{`document 1`, `"replicas"`},
	}, {
		name: "unknown kind",
		old:  "kind: Service",
		new:  "kind: Servic",
		want: []string{`document 2 (Servic bridge)`, `unknown kind v1 Servic`},
	}, {
		name: "selector does not match the pods",
		old:  "matchLabels: {app: bridge}",
		new:  "matchLabels: {app: other}",
		want: []string{`spec.selector: app=other does not match spec.template.metadata.labels`},
	}, {
		name: "service selects nothing",
		old:  "  selector: {app: bridge}\n  ports:",
		new:  "  selector: {app: nobody}\n  ports:",
		want: []string{`document 2 (Service bridge): spec.selector: app=nobody matches the pod labels of no Deployment`},
	}, {
		name: "service targetPort",
		old:  "targetPort: grpc",
		new:  "targetPort: grcp",
		want: []string{`spec.ports[0].targetPort: grcp is not a container port of Deployment bridge`},
	}, {
		name: "mount without volume",
		old:  "{name: tmp, mountPath: /tmp}",
		new:  "{name: scratch, mountPath: /tmp}",
		want: []string{`volumeMounts[0].name: "scratch" names no volume`},
	}, {
		name: "writable root",
		old:  "readOnlyRootFilesystem: true",
		new:  "readOnlyRootFilesystem: false",
		want: []string{`securityContext.readOnlyRootFilesystem: must be true`},
	}, {
		name: "root",
		old:  "runAsNonRoot: true",
		new:  "runAsNonRoot: false",
		want: []string{`securityContext.runAsNonRoot: must be true`},
	}, {
		name: "no name",
		old:  "metadata: {name: bridge, namespace: ns}\nspec:\n  selector",
		new:  "metadata: {namespace: ns}\nspec:\n  selector",
		want: []string{`document 2 (Service): metadata.name: required`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(good, tc.old, tc.new, 1)
			if text == good {
				t.Fatalf("%q is not in the good manifests", tc.old)
			}
			code, stderr := validateManifests(t, text)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			wantProblems(t, stderr, tc.want...)
		})
	}
}

func TestNoDocuments(t *testing.T) {
	code, stderr := validateManifests(t, "---\n# nothing\n")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	wantProblems(t, stderr, "no manifest documents")
}

// TestEnvoy checks deploy/envoy/envoy.yaml, then breaks it.
func TestEnvoy(t *testing.T) {
	data, err := os.ReadFile("../envoy/envoy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p := checkEnvoy("envoy.yaml", data); len(p) != 0 {
		t.Fatalf("deploy/envoy/envoy.yaml: %q", p)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown field", "lb_policy: RING_HASH", "lb_polcy: RING_HASH", `unknown field "lb_polcy"`},
		{"not ring hash", "lb_policy: RING_HASH", "lb_policy: ROUND_ROBIN", "lb_policy: ROUND_ROBIN, want RING_HASH"},
		{"wrong header", "header_name: mcp-session", "header_name: mcp-sesion", "no header hash_policy on mcp-session"},
		{"no grpc health check", `grpc_health_check: {service_name: ""}`, "tcp_health_check: {}", "no grpc_health_check"},
		{"unknown typed_config", "router.v3.Router", "router.v3.Routr", "router.v3.Routr"},
		{"no http2 upstream", "http2_protocol_options: {}\n      load_assignment", "http_protocol_options: {}\n      load_assignment", "http2_protocol_options is required"},
		{"validation rule", "port_value: 50051", "port_value: 70000", "PortValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broken := strings.Replace(string(data), tc.old, tc.new, 1)
			if broken == string(data) {
				t.Fatalf("%q is not in envoy.yaml", tc.old)
			}
			p := checkEnvoy("envoy.yaml", []byte(broken))
			if !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Errorf("problems %q do not report %q", p, tc.want)
			}
		})
	}
}
