package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// kinds are the apiVersion and kind pairs the chart renders, each with
// the typed object its documents decode into. Any other is an error.
var kinds = map[string]func() any{
	"apps/v1 Deployment":                      func() any { return new(appsv1.Deployment) },
	"v1 Service":                              func() any { return new(corev1.Service) },
	"v1 ConfigMap":                            func() any { return new(corev1.ConfigMap) },
	"v1 Secret":                               func() any { return new(corev1.Secret) },
	"v1 ServiceAccount":                       func() any { return new(corev1.ServiceAccount) },
	"policy/v1 PodDisruptionBudget":           func() any { return new(policyv1.PodDisruptionBudget) },
	"autoscaling/v2 HorizontalPodAutoscaler":  func() any { return new(autoscalingv2.HorizontalPodAutoscaler) },
	"networking.k8s.io/v1 NetworkPolicy":      func() any { return new(networkingv1.NetworkPolicy) },
	"monitoring.coreos.com/v1 ServiceMonitor": func() any { return new(monitoringv1.ServiceMonitor) },
}

// doc is one decoded manifest document.
type doc struct {
	file   string // the file's name, "-" for stdin
	index  int    // 1-based among the file's documents, empty ones included
	source string // helm's "# Source:" comment, if any
	kind   string
	meta   *metav1.ObjectMeta
	obj    any
}

func (d *doc) String() string {
	s := fmt.Sprintf("%s: document %d", d.file, d.index)
	if d.kind != "" {
		s += " (" + d.kind
		if d.meta != nil && d.meta.Name != "" {
			s += " " + d.meta.Name
		}
		s += ")"
	}
	if d.source != "" {
		s += " from " + d.source
	}
	return s
}

func (d *doc) namespace() string {
	if d.meta.Namespace == "" {
		return "default"
	}
	return d.meta.Namespace
}

// report gathers the problems found, each naming its document and field.
type report struct{ problems []string }

func (r *report) add(d *doc, fld string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if fld != "" {
		msg = fld + ": " + msg
	}
	r.problems = append(r.problems, d.String()+": "+msg)
}

func (r *report) addErrs(d *doc, errs field.ErrorList) {
	for _, e := range errs {
		r.add(d, "", "%s", e.Error())
	}
}

// checkManifestFiles reads every file ("-": stdin) and checks all their
// documents together, since a Service's selector is checked against the
// Deployments of the whole set. It returns how many documents were
// checked, and an error only for a file that cannot be read.
func checkManifestFiles(names []string, stdin io.Reader) (int, []string, error) {
	var r report
	var docs []*doc
	for _, name := range names {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return 0, nil, err
		}
		docs = append(docs, decodeManifests(name, data, &r)...)
	}
	if len(docs) == 0 && len(r.problems) == 0 {
		r.problems = append(r.problems, fmt.Sprintf("%s: no manifest documents", strings.Join(names, ", ")))
	}
	checkManifests(docs, &r)
	return len(docs), r.problems, nil
}

var sourceComment = regexp.MustCompile(`(?m)^# Source: (.+)$`)

// decodeManifests splits data into its YAML documents and decodes each
// strictly into its typed object. A document that does not decode at all
// is reported and left out; one with unknown or duplicated fields is
// reported and kept, so that its other faults are reported too.
func decodeManifests(file string, data []byte, r *report) []*doc {
	var docs []*doc
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for index := 1; ; index++ {
		chunk, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		d := &doc{file: file, index: index}
		if err != nil {
			r.add(d, "", "reading YAML: %v", err)
			break
		}
		if m := sourceComment.FindSubmatch(chunk); m != nil {
			d.source = string(m[1])
		}
		j, err := yaml.YAMLToJSONStrict(chunk)
		if err != nil {
			r.add(d, "", "YAML: %v", err)
			continue
		}
		if string(bytes.TrimSpace(j)) == "null" {
			continue // empty, or comments only
		}
		// A loose first look, for the kind and a name to report by.
		var head struct {
			metav1.TypeMeta
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(j, &head); err != nil {
			r.add(d, "", "not a Kubernetes object: %v", err)
			continue
		}
		tm := head.TypeMeta
		d.kind = tm.Kind
		d.meta = &metav1.ObjectMeta{Name: head.Metadata.Name}
		if tm.APIVersion == "" || tm.Kind == "" {
			r.add(d, "", "apiVersion and kind are required")
			continue
		}
		newObj, ok := kinds[tm.APIVersion+" "+tm.Kind]
		if !ok {
			r.add(d, "apiVersion/kind", "unknown kind %s %s (want one of: %s)", tm.APIVersion, tm.Kind, strings.Join(sortedKinds(), ", "))
			continue
		}
		obj := newObj()
		// sigs.k8s.io/json is the API server's own decoder: field names
		// are case-sensitive, and unknown and duplicated fields are
		// reported with their paths (spec.replica), not just their names.
		strictErrs, err := sigsjson.UnmarshalStrict(j, obj)
		if err != nil {
			r.add(d, "", "decoding %s %s: %v", tm.APIVersion, tm.Kind, err)
			continue
		}
		d.obj = obj
		d.meta = objectMeta(obj)
		for _, e := range strictErrs {
			r.add(d, "", "strict decoding: %v", e)
		}
		docs = append(docs, d)
	}
	return docs
}

func sortedKinds() []string {
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func objectMeta(obj any) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.ObjectMeta
	case *corev1.Service:
		return &o.ObjectMeta
	case *corev1.ConfigMap:
		return &o.ObjectMeta
	case *corev1.Secret:
		return &o.ObjectMeta
	case *corev1.ServiceAccount:
		return &o.ObjectMeta
	case *policyv1.PodDisruptionBudget:
		return &o.ObjectMeta
	case *autoscalingv2.HorizontalPodAutoscaler:
		return &o.ObjectMeta
	case *networkingv1.NetworkPolicy:
		return &o.ObjectMeta
	case *monitoringv1.ServiceMonitor:
		return &o.ObjectMeta
	}
	panic(fmt.Sprintf("no ObjectMeta for %T", obj))
}

// checkManifests runs the checks of each document, and those across
// documents: selectors against the Deployments' pod labels, ports against
// their containers' ports.
func checkManifests(docs []*doc, r *report) {
	seen := map[string]*doc{}
	var deployments []*doc
	var services []*doc
	for _, d := range docs {
		checkMeta(d, r)
		key := d.kind + " " + d.namespace() + "/" + d.meta.Name
		if first, ok := seen[key]; ok {
			r.add(d, "metadata.name", "%s is also defined by %s", key, first)
		}
		seen[key] = d
		switch d.obj.(type) {
		case *appsv1.Deployment:
			deployments = append(deployments, d)
		case *corev1.Service:
			services = append(services, d)
		}
	}
	for _, d := range docs {
		switch o := d.obj.(type) {
		case *appsv1.Deployment:
			checkDeployment(d, o, r)
		case *corev1.Service:
			checkService(d, o, deployments, r)
		case *policyv1.PodDisruptionBudget:
			checkPDB(d, o, deployments, r)
		case *autoscalingv2.HorizontalPodAutoscaler:
			checkHPA(d, o, deployments, r)
		case *networkingv1.NetworkPolicy:
			checkNetworkPolicy(d, o, deployments, r)
		case *monitoringv1.ServiceMonitor:
			checkServiceMonitor(d, o, services, r)
		}
	}
}

func checkMeta(d *doc, r *report) {
	m := d.meta
	if m.Name == "" {
		r.add(d, "metadata.name", "required")
	} else {
		isName := validation.IsDNS1123Subdomain
		if d.kind == "Service" {
			isName = validation.IsDNS1035Label // a Service's name is a DNS label
		}
		for _, msg := range isName(m.Name) {
			r.add(d, "metadata.name", "%q: %s", m.Name, msg)
		}
	}
	if m.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(m.Namespace) {
			r.add(d, "metadata.namespace", "%q: %s", m.Namespace, msg)
		}
	}
	r.addErrs(d, metav1validation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")))
}

// selector converts a LabelSelector, reporting a malformed or empty one.
func selector(d *doc, fld string, ls *metav1.LabelSelector, r *report) labels.Selector {
	if ls == nil || (len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0) {
		r.add(d, fld, "required, and must not be empty")
		return nil
	}
	r.addErrs(d, metav1validation.ValidateLabelSelector(ls, metav1validation.LabelSelectorValidationOptions{}, field.NewPath(fld)))
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		r.add(d, fld, "%v", err)
		return nil
	}
	return sel
}

// podsMatching are the Deployments of d's namespace whose pod template
// labels sel matches.
func podsMatching(d *doc, sel labels.Selector, deployments []*doc) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	for _, dd := range deployments {
		dep := dd.obj.(*appsv1.Deployment)
		if dd.namespace() == d.namespace() && sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
			out = append(out, dep)
		}
	}
	return out
}

// portRef says whether p (a name or a number) is a port of a container of
// the pod spec.
func portRef(spec *corev1.PodSpec, p intstr.IntOrString) bool {
	for _, c := range spec.Containers {
		for _, cp := range c.Ports {
			if p.Type == intstr.String && cp.Name == p.StrVal {
				return true
			}
			if p.Type == intstr.Int && cp.ContainerPort == p.IntVal {
				return true
			}
		}
	}
	return false
}

func checkDeployment(d *doc, dep *appsv1.Deployment, r *report) {
	if dep.Spec.Replicas != nil && *dep.Spec.Replicas < 0 {
		r.add(d, "spec.replicas", "%d is negative", *dep.Spec.Replicas)
	}
	if sel := selector(d, "spec.selector", dep.Spec.Selector, r); sel != nil {
		if !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
			r.add(d, "spec.selector", "%s does not match spec.template.metadata.labels %v", sel, dep.Spec.Template.Labels)
		}
	}
	r.addErrs(d, metav1validation.ValidateLabels(dep.Spec.Template.Labels, field.NewPath("spec", "template", "metadata", "labels")))
	spec := &dep.Spec.Template.Spec
	const base = "spec.template.spec"

	volumes := map[string]bool{}
	for i, v := range spec.Volumes {
		fld := fmt.Sprintf("%s.volumes[%d].name", base, i)
		if v.Name == "" {
			r.add(d, fld, "required")
		} else if volumes[v.Name] {
			r.add(d, fld, "%q is defined twice", v.Name)
		}
		volumes[v.Name] = true
	}

	if len(spec.Containers) == 0 {
		r.add(d, base+".containers", "required")
	}
	all := append(slices.Clone(spec.InitContainers), spec.Containers...)
	for i, c := range all {
		fld := fmt.Sprintf("%s.containers[%d]", base, i-len(spec.InitContainers))
		if i < len(spec.InitContainers) {
			fld = fmt.Sprintf("%s.initContainers[%d]", base, i)
		}
		if c.Name == "" {
			r.add(d, fld+".name", "required")
		}
		if c.Image == "" {
			r.add(d, fld+".image", "required")
		}
		checkPorts(d, fld, c.Ports, r)
		for _, p := range []struct {
			name  string
			probe *corev1.Probe
		}{{"startupProbe", c.StartupProbe}, {"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}} {
			checkProbe(d, fld+"."+p.name, p.probe, c.Ports, r)
		}
		checkSecurity(d, fld, spec.SecurityContext, c.SecurityContext, r)
		mounts := map[string]bool{}
		for j, m := range c.VolumeMounts {
			mfld := fmt.Sprintf("%s.volumeMounts[%d]", fld, j)
			if !volumes[m.Name] {
				r.add(d, mfld+".name", "%q names no volume of %s.volumes", m.Name, base)
			}
			if !path.IsAbs(m.MountPath) {
				r.add(d, mfld+".mountPath", "%q is not an absolute path", m.MountPath)
			} else if mounts[path.Clean(m.MountPath)] {
				r.add(d, mfld+".mountPath", "%q is mounted twice", m.MountPath)
			}
			mounts[path.Clean(m.MountPath)] = true
		}
	}
}

func checkPorts(d *doc, fld string, ports []corev1.ContainerPort, r *report) {
	names := map[string]bool{}
	numbers := map[int32]bool{}
	for i, p := range ports {
		pfld := fmt.Sprintf("%s.ports[%d]", fld, i)
		if p.ContainerPort < 1 || p.ContainerPort > 65535 {
			r.add(d, pfld+".containerPort", "%d is not a port number", p.ContainerPort)
		} else if numbers[p.ContainerPort] {
			r.add(d, pfld+".containerPort", "%d is declared twice", p.ContainerPort)
		}
		numbers[p.ContainerPort] = true
		if p.Name != "" {
			for _, msg := range validation.IsValidPortName(p.Name) {
				r.add(d, pfld+".name", "%q: %s", p.Name, msg)
			}
			if names[p.Name] {
				r.add(d, pfld+".name", "%q is declared twice", p.Name)
			}
			names[p.Name] = true
		}
	}
}

// checkProbe checks that a probe has one handler and that its port is a
// port the container declares.
func checkProbe(d *doc, fld string, p *corev1.Probe, ports []corev1.ContainerPort, r *report) {
	if p == nil {
		return
	}
	declared := func(v intstr.IntOrString) bool {
		for _, cp := range ports {
			if (v.Type == intstr.String && cp.Name == v.StrVal) || (v.Type == intstr.Int && cp.ContainerPort == v.IntVal) {
				return true
			}
		}
		return false
	}
	handlers := 0
	if p.Exec != nil {
		handlers++
	}
	if g := p.GRPC; g != nil {
		handlers++
		if !declared(intstr.FromInt32(g.Port)) {
			r.add(d, fld+".grpc.port", "%d is not a containerPort of this container", g.Port)
		}
	}
	if h := p.HTTPGet; h != nil {
		handlers++
		if !declared(h.Port) {
			r.add(d, fld+".httpGet.port", "%s is not a port of this container", h.Port.String())
		}
	}
	if t := p.TCPSocket; t != nil {
		handlers++
		if !declared(t.Port) {
			r.add(d, fld+".tcpSocket.port", "%s is not a port of this container", t.Port.String())
		}
	}
	if handlers != 1 {
		r.add(d, fld, "has %d handlers (exec, grpc, httpGet, tcpSocket); want exactly 1", handlers)
	}
	if p.FailureThreshold < 0 || p.PeriodSeconds < 0 || p.TimeoutSeconds < 0 {
		r.add(d, fld, "negative threshold or period")
	}
}

// checkSecurity holds a container to what the chart promises: non-root,
// read-only root filesystem, no privilege escalation, no capabilities.
func checkSecurity(d *doc, fld string, pod *corev1.PodSecurityContext, c *corev1.SecurityContext, r *report) {
	fld += ".securityContext"
	if c == nil {
		r.add(d, fld, "missing: the container must run as non-root with a read-only root filesystem")
		return
	}
	nonRoot := c.RunAsNonRoot
	if nonRoot == nil && pod != nil {
		nonRoot = pod.RunAsNonRoot
	}
	if nonRoot == nil || !*nonRoot {
		r.add(d, fld+".runAsNonRoot", "must be true (here or in the pod's securityContext)")
	}
	user := c.RunAsUser
	if user == nil && pod != nil {
		user = pod.RunAsUser
	}
	if user != nil && *user == 0 {
		r.add(d, fld+".runAsUser", "0 is root")
	}
	if c.ReadOnlyRootFilesystem == nil || !*c.ReadOnlyRootFilesystem {
		r.add(d, fld+".readOnlyRootFilesystem", "must be true")
	}
	if c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation {
		r.add(d, fld+".allowPrivilegeEscalation", "must be false")
	}
	if c.Privileged != nil && *c.Privileged {
		r.add(d, fld+".privileged", "must not be true")
	}
	if c.Capabilities == nil || !slices.Contains(c.Capabilities.Drop, "ALL") {
		r.add(d, fld+".capabilities.drop", "must contain ALL")
	}
}

func checkService(d *doc, svc *corev1.Service, deployments []*doc, r *report) {
	if len(svc.Spec.Selector) == 0 {
		r.add(d, "spec.selector", "required: the chart's Services select the bridge's pods")
		return
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	pods := podsMatching(d, sel, deployments)
	if len(pods) == 0 {
		r.add(d, "spec.selector", "%s matches the pod labels of no Deployment in namespace %s", sel, d.namespace())
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone && svc.Spec.Type != "" && svc.Spec.Type != corev1.ServiceTypeClusterIP {
		r.add(d, "spec.clusterIP", "None needs type ClusterIP, not %s", svc.Spec.Type)
	}
	if len(svc.Spec.Ports) == 0 {
		r.add(d, "spec.ports", "required")
	}
	names := map[string]bool{}
	for i, p := range svc.Spec.Ports {
		fld := fmt.Sprintf("spec.ports[%d]", i)
		if p.Port < 1 || p.Port > 65535 {
			r.add(d, fld+".port", "%d is not a port number", p.Port)
		}
		if len(svc.Spec.Ports) > 1 && p.Name == "" {
			r.add(d, fld+".name", "required when a Service has several ports")
		}
		if p.Name != "" && names[p.Name] {
			r.add(d, fld+".name", "%q is declared twice", p.Name)
		}
		names[p.Name] = true
		target := p.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(p.Port) // the default: the same number
		}
		for _, dep := range pods {
			if !portRef(&dep.Spec.Template.Spec, target) {
				r.add(d, fld+".targetPort", "%s is not a container port of Deployment %s", target.String(), dep.Name)
			}
		}
	}
}

func checkPDB(d *doc, pdb *policyv1.PodDisruptionBudget, deployments []*doc, r *report) {
	if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
		r.add(d, "spec", "give exactly one of minAvailable and maxUnavailable")
	}
	if sel := selector(d, "spec.selector", pdb.Spec.Selector, r); sel != nil {
		if len(podsMatching(d, sel, deployments)) == 0 {
			r.add(d, "spec.selector", "%s matches the pod labels of no Deployment in namespace %s", sel, d.namespace())
		}
	}
}

func checkHPA(d *doc, hpa *autoscalingv2.HorizontalPodAutoscaler, deployments []*doc, r *report) {
	ref := hpa.Spec.ScaleTargetRef
	var target *appsv1.Deployment
	for _, dd := range deployments {
		if dep := dd.obj.(*appsv1.Deployment); dd.namespace() == d.namespace() && dep.Name == ref.Name {
			target = dep
		}
	}
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || target == nil {
		r.add(d, "spec.scaleTargetRef", "%s %s %q is not a Deployment of these manifests", ref.APIVersion, ref.Kind, ref.Name)
	}
	if hpa.Spec.MaxReplicas < 1 {
		r.add(d, "spec.maxReplicas", "must be at least 1")
	}
	if m := hpa.Spec.MinReplicas; m != nil && (*m < 1 || *m > hpa.Spec.MaxReplicas) {
		r.add(d, "spec.minReplicas", "%d is not between 1 and maxReplicas %d", *m, hpa.Spec.MaxReplicas)
	}
	// A scale-down drains pods, and their sessions start again elsewhere
	// without their state; no PodDisruptionBudget paces an HPA, so its
	// behavior must (docs/scaling.md, "Autoscaling").
	if b := hpa.Spec.Behavior; b == nil || b.ScaleDown == nil || len(b.ScaleDown.Policies) == 0 {
		r.add(d, "spec.behavior.scaleDown.policies", "required: without them Kubernetes may remove every replica above minReplicas at once, and their sessions with them")
	}
	if b := hpa.Spec.Behavior; b != nil {
		checkScalingRules(d, "spec.behavior.scaleUp", b.ScaleUp, r)
		checkScalingRules(d, "spec.behavior.scaleDown", b.ScaleDown, r)
	}
	for i, m := range hpa.Spec.Metrics {
		fld := fmt.Sprintf("spec.metrics[%d]", i)
		set := map[autoscalingv2.MetricSourceType]bool{
			autoscalingv2.ResourceMetricSourceType:          m.Resource != nil,
			autoscalingv2.PodsMetricSourceType:              m.Pods != nil,
			autoscalingv2.ObjectMetricSourceType:            m.Object != nil,
			autoscalingv2.ExternalMetricSourceType:          m.External != nil,
			autoscalingv2.ContainerResourceMetricSourceType: m.ContainerResource != nil,
		}
		given, known := set[m.Type]
		if !known {
			r.add(d, fld+".type", "unknown metric type %q", m.Type)
			continue
		}
		if !given {
			r.add(d, fld, "type %s without its %s field", m.Type, strings.ToLower(string(m.Type[:1]))+string(m.Type[1:]))
		}
		// A utilization target is a share of the containers' requests:
		// without a request the HPA cannot compute it.
		if res := m.Resource; res != nil && target != nil && res.Target.Type == autoscalingv2.UtilizationMetricType {
			for j, c := range target.Spec.Template.Spec.Containers {
				if _, ok := c.Resources.Requests[res.Name]; !ok {
					r.add(d, fld+".resource", "%s utilization needs a %s request on container %d (%s) of Deployment %s", res.Name, res.Name, j, c.Name, target.Name)
				}
			}
		}
	}
}

// checkScalingRules holds an HPA's scaling rules to the API server's
// limits (the validation of autoscaling/v2 HPAScalingRules).
func checkScalingRules(d *doc, fld string, rules *autoscalingv2.HPAScalingRules, r *report) {
	if rules == nil {
		return
	}
	if w := rules.StabilizationWindowSeconds; w != nil && (*w < 0 || *w > 3600) {
		r.add(d, fld+".stabilizationWindowSeconds", "%d is not between 0 and 3600", *w)
	}
	if p := rules.SelectPolicy; p != nil && !slices.Contains([]autoscalingv2.ScalingPolicySelect{
		autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect}, *p) {
		r.add(d, fld+".selectPolicy", "%q is not Max, Min or Disabled", *p)
	}
	for i, p := range rules.Policies {
		pfld := fmt.Sprintf("%s.policies[%d]", fld, i)
		if p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy {
			r.add(d, pfld+".type", "%q is not Pods or Percent", p.Type)
		}
		if p.Value <= 0 {
			r.add(d, pfld+".value", "%d must be greater than 0", p.Value)
		}
		if p.PeriodSeconds <= 0 || p.PeriodSeconds > 1800 {
			r.add(d, pfld+".periodSeconds", "%d is not between 1 and 1800", p.PeriodSeconds)
		}
	}
}

func checkNetworkPolicy(d *doc, np *networkingv1.NetworkPolicy, deployments []*doc, r *report) {
	ls := np.Spec.PodSelector
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		r.add(d, "spec.podSelector", "%v", err)
		return
	}
	pods := podsMatching(d, sel, deployments)
	if len(pods) == 0 {
		r.add(d, "spec.podSelector", "%s matches the pod labels of no Deployment in namespace %s", sel, d.namespace())
	}
	checkPort := func(fld string, p *intstr.IntOrString) {
		if p == nil || p.Type != intstr.String {
			return // a number needs no container port of that name
		}
		for _, dep := range pods {
			if !portRef(&dep.Spec.Template.Spec, *p) {
				r.add(d, fld, "%q is not a container port name of Deployment %s", p.StrVal, dep.Name)
			}
		}
	}
	for i, rule := range np.Spec.Ingress {
		for j, p := range rule.Ports {
			checkPort(fmt.Sprintf("spec.ingress[%d].ports[%d].port", i, j), p.Port)
		}
	}
	for i, rule := range np.Spec.Egress {
		for j, p := range rule.Ports {
			if p.Port != nil && p.Port.Type == intstr.String {
				r.add(d, fmt.Sprintf("spec.egress[%d].ports[%d].port", i, j), "a named port %q names a port of the destination, which these manifests do not know; use a number", p.Port.StrVal)
			}
		}
	}
	for _, t := range np.Spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			r.add(d, "spec.policyTypes", "unknown policy type %q", t)
		}
	}
}

func checkServiceMonitor(d *doc, sm *monitoringv1.ServiceMonitor, services []*doc, r *report) {
	ls := sm.Spec.Selector
	sel := selector(d, "spec.selector", &ls, r)
	if sel == nil {
		return
	}
	namespaces := sm.Spec.NamespaceSelector.MatchNames
	if len(namespaces) == 0 && !sm.Spec.NamespaceSelector.Any {
		namespaces = []string{d.namespace()}
	}
	var matched []*corev1.Service
	for _, sd := range services {
		svc := sd.obj.(*corev1.Service)
		if (sm.Spec.NamespaceSelector.Any || slices.Contains(namespaces, sd.namespace())) && sel.Matches(labels.Set(svc.Labels)) {
			matched = append(matched, svc)
		}
	}
	if len(matched) == 0 {
		r.add(d, "spec.selector", "%s matches the labels of no Service in namespaces %v", sel, namespaces)
		return
	}
	if len(sm.Spec.Endpoints) == 0 {
		r.add(d, "spec.endpoints", "required")
	}
	for i, ep := range sm.Spec.Endpoints {
		fld := fmt.Sprintf("spec.endpoints[%d].port", i)
		if ep.Port == "" {
			r.add(d, fld, "required: the name of a Service port")
			continue
		}
		found := false
		for _, svc := range matched {
			for _, p := range svc.Spec.Ports {
				found = found || p.Name == ep.Port
			}
		}
		if !found {
			r.add(d, fld, "%q is not a port name of the Services the selector matches", ep.Port)
		}
	}
}
