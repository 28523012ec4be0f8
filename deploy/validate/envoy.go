package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	// The typed_config types that deploy/envoy/envoy.yaml names, so that
	// protojson resolves its Any fields (the packages above register the
	// rest).
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
)

const (
	hcmName          = "envoy.filters.network.http_connection_manager"
	httpProtocolName = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
	sessionHeader    = "mcp-session"
)

// validatedMessage is a go-control-plane message: a proto message with
// its protoc-gen-validate rules.
type validatedMessage interface {
	proto.Message
	ValidateAll() error
}

// checkEnvoyFile decodes an Envoy bootstrap and checks the session
// routing: every route to a cluster hashes mcp-session, and that cluster
// is a RING_HASH over HTTP/2 with gRPC health checks. It returns an error
// only when the file cannot be read.
func checkEnvoyFile(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return checkEnvoy(name, data), nil
}

func checkEnvoy(name string, data []byte) []string {
	var problems []string
	add := func(fld, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s: %s: %s", name, fld, fmt.Sprintf(format, args...)))
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		add("(file)", "YAML: %v", err)
		return problems
	}
	var bs bootstrapv3.Bootstrap
	// DiscardUnknown false: an unknown field, or a typed_config whose
	// type is not linked in, is an error naming it.
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(j, &bs); err != nil {
		add("(file)", "envoy.config.bootstrap.v3.Bootstrap: %s", yamlPosition(err.Error(), data))
		return problems
	}
	if err := bs.ValidateAll(); err != nil {
		add("(file)", "%v", err)
	}

	clusters := map[string]*clusterv3.Cluster{}
	for i, c := range bs.GetStaticResources().GetClusters() {
		clusters[c.GetName()] = c
		checkCluster(fmt.Sprintf("static_resources.clusters[%d] (%s)", i, c.GetName()), c, add)
	}

	routes := 0
	for i, l := range bs.GetStaticResources().GetListeners() {
		for j, fc := range l.GetFilterChains() {
			for k, f := range fc.GetFilters() {
				fld := fmt.Sprintf("static_resources.listeners[%d].filter_chains[%d].filters[%d]", i, j, k)
				if f.GetName() != hcmName {
					continue
				}
				var hcm hcmv3.HttpConnectionManager
				if err := unpack(f.GetTypedConfig(), &hcm); err != nil {
					add(fld+".typed_config", "%v", err)
					continue
				}
				if hcm.GetRds() != nil {
					add(fld+".typed_config.rds", "routes come from RDS; this check needs route_config inline")
					continue
				}
				filters := hcm.GetHttpFilters()
				if len(filters) == 0 || filters[len(filters)-1].GetName() != "envoy.filters.http.router" {
					add(fld+".typed_config.http_filters", "the last HTTP filter must be envoy.filters.http.router")
				}
				for v, vh := range hcm.GetRouteConfig().GetVirtualHosts() {
					for r, rt := range vh.GetRoutes() {
						rfld := fmt.Sprintf("%s.typed_config.route_config.virtual_hosts[%d].routes[%d].route", fld, v, r)
						action := rt.GetRoute()
						if action == nil {
							continue // a redirect or a direct response
						}
						routes++
						checkRoute(rfld, action, clusters, add)
					}
				}
			}
		}
	}
	if routes == 0 {
		add("static_resources.listeners", "no route to a cluster through %s", hcmName)
	}
	return problems
}

// unpack decodes an Any into m and runs m's validation rules, which
// Bootstrap.ValidateAll does not apply inside an Any.
func unpack(a *anypb.Any, m validatedMessage) error {
	if a == nil {
		return fmt.Errorf("missing (want %s)", m.ProtoReflect().Descriptor().FullName())
	}
	if err := a.UnmarshalTo(m); err != nil {
		return fmt.Errorf("%s: %v", a.GetTypeUrl(), err)
	}
	return m.ValidateAll()
}

func checkRoute(fld string, action *routev3.RouteAction, clusters map[string]*clusterv3.Cluster, add func(string, string, ...any)) {
	name := action.GetCluster()
	if name == "" {
		add(fld+".cluster", "the session route must name one cluster (not weighted_clusters or a header)")
		return
	}
	if _, ok := clusters[name]; !ok {
		add(fld+".cluster", "%q is not a static cluster", name)
	}
	hashed := false
	for _, hp := range action.GetHashPolicy() {
		if h := hp.GetHeader(); h != nil && strings.EqualFold(h.GetHeaderName(), sessionHeader) {
			hashed = true
		}
	}
	if !hashed {
		add(fld+".hash_policy", "no header hash_policy on %s: a session's calls would reach any replica", sessionHeader)
	}
}

func checkCluster(fld string, c *clusterv3.Cluster, add func(string, string, ...any)) {
	if c.GetLbPolicy() != clusterv3.Cluster_RING_HASH {
		add(fld+".lb_policy", "%s, want RING_HASH (hash_policy is ignored otherwise)", c.GetLbPolicy())
	}
	if c.GetType() != clusterv3.Cluster_STRICT_DNS {
		add(fld+".type", "%s, want STRICT_DNS (one host per address of the headless Service)", c.GetType())
	}
	opts, ok := c.GetTypedExtensionProtocolOptions()[httpProtocolName]
	var po upstreamhttpv3.HttpProtocolOptions
	if !ok {
		add(fld+".typed_extension_protocol_options", "no %s: the upstream would be HTTP/1.1, which gRPC cannot use", httpProtocolName)
	} else if err := unpack(opts, &po); err != nil {
		add(fld+".typed_extension_protocol_options."+httpProtocolName, "%v", err)
	} else if po.GetExplicitHttpConfig().GetHttp2ProtocolOptions() == nil {
		add(fld+".typed_extension_protocol_options."+httpProtocolName, "explicit_http_config.http2_protocol_options is required (gRPC is HTTP/2)")
	}
	grpcHealth := false
	for _, hc := range c.GetHealthChecks() {
		grpcHealth = grpcHealth || hc.GetGrpcHealthCheck() != nil
	}
	if !grpcHealth {
		add(fld+".health_checks", "no grpc_health_check: a draining replica (NOT_SERVING) would stay in the ring")
	}
	if c.GetOutlierDetection() == nil {
		add(fld+".outlier_detection", "missing: a replica answering UNAVAILABLE would stay in the ring")
	}
}

var (
	jsonPosition = regexp.MustCompile(`\(line \d+:\d+\): `)
	quotedName   = regexp.MustCompile(`(?:unknown field|unable to resolve) "([^"]+)"`)
)

// yamlPosition replaces protojson's position, which is one in the JSON
// converted from the YAML, by the YAML line of the name the error quotes
// (an unknown field, an unresolved type) when that name is on one line
// only.
func yamlPosition(msg string, data []byte) string {
	msg = jsonPosition.ReplaceAllString(msg, "")
	m := quotedName.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, m[1]) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			if line != 0 {
				return msg // more than one line
			}
			line = i + 1
		}
	}
	if line == 0 {
		return msg
	}
	return fmt.Sprintf("line %d: %s", line, msg)
}
