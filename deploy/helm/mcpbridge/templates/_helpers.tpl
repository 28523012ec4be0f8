{{/*
The chart name, truncated to the 63 characters of a DNS label.
*/}}
{{- define "mcpbridge.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The fully qualified app name: the release name, with the chart name in
front unless the release name already holds it. Truncated to 52
characters so that "<fullname>-headless" is still a DNS label.
*/}}
{{- define "mcpbridge.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mcpbridge.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mcpbridge.labels" -}}
helm.sh/chart: {{ include "mcpbridge.chart" . }}
{{ include "mcpbridge.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "mcpbridge.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mcpbridge.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "mcpbridge.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mcpbridge.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "mcpbridge.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "mcpbridge.configName" -}}
{{- printf "%s-config" (include "mcpbridge.fullname" .) }}
{{- end }}

{{/*
mcpbridge.seconds: a duration of Go's syntax ("5s", "1m30s", "1.5s",
"500ms"; units h, m, s, ms, us, µs, ns) as whole seconds rounded up.
Takes (dict "value" V "name" "drain.delay"); the name is for the error.
*/}}
{{- define "mcpbridge.seconds" -}}
{{- $d := toString .value }}
{{- $part := "[0-9]+(\\.[0-9]*)?(ms|us|µs|ns|h|m|s)" }}
{{- if not (regexMatch (printf "^(%s)+$" $part) $d) }}
{{- fail (printf "%s: %q is not a duration such as 5s, 1m30s or 500ms" .name $d) }}
{{- end }}
{{- $ms := 0.0 }}
{{- range regexFindAll $part $d -1 }}
{{- $n := regexFind "^[0-9]+(\\.[0-9]*)?" . | float64 }}
{{- $unit := regexReplaceAll "^[0-9]+(\\.[0-9]*)?" . "" }}
{{- $scale := get (dict "h" 3600000.0 "m" 60000.0 "s" 1000.0 "ms" 1.0 "us" 0.001 "µs" 0.001 "ns" 0.000001) $unit }}
{{- $ms = addf $ms (mulf $n $scale) }}
{{- end }}
{{- divf $ms 1000 | ceil | int }}
{{- end }}

{{/*
mcpbridge.childStopSeconds: how long the children may take to stop after
the graceful stop, in seconds: drain.childStop when set, else twice the
longest grace a child gets (closed stdin, grace, SIGTERM, grace, SIGKILL;
every child stops at once). A server's grace is its restart.grace in
config, or the bridge's --grace (from extraArgs; 5s by default).
*/}}
{{- define "mcpbridge.childStopSeconds" -}}
{{- if .Values.drain.childStop }}
{{- include "mcpbridge.seconds" (dict "value" .Values.drain.childStop "name" "drain.childStop") }}
{{- else }}
{{- $default := "5s" }}
{{- $args := .Values.extraArgs | default list }}
{{- range $i, $a := $args }}
{{- if and (has (toString $a) (list "--grace" "-grace")) (lt (add1 $i) (len $args)) }}
{{- $default = toString (index $args (add1 $i)) }}
{{- else if regexMatch "^--?grace=" (toString $a) }}
{{- $default = regexReplaceAll "^--?grace=" (toString $a) "" }}
{{- end }}
{{- end }}
{{- $grace := 0 }}
{{- range $i, $s := .Values.config.servers }}
{{- $g := include "mcpbridge.seconds" (dict "value" $default "name" "extraArgs: --grace") | atoi }}
{{- with dig "restart" "grace" "" $s }}
{{- $g = include "mcpbridge.seconds" (dict "value" . "name" (printf "config.servers[%d].restart.grace" $i)) | atoi }}
{{- end }}
{{- $grace = max $grace $g }}
{{- end }}
{{- mul 2 $grace }}
{{- end }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the drain delay, the shutdown timeout, the
children's stop (mcpbridge.childStopSeconds) and a margin, unless
drain.terminationGracePeriodSeconds overrides it; an override below delay +
shutdown timeout fails the render, since the kubelet would kill the bridge
while calls are still draining.
*/}}
{{- define "mcpbridge.terminationGracePeriodSeconds" -}}
{{- $delay := include "mcpbridge.seconds" (dict "value" .Values.drain.delay "name" "drain.delay") | atoi }}
{{- $timeout := include "mcpbridge.seconds" (dict "value" .Values.drain.shutdownTimeout "name" "drain.shutdownTimeout") | atoi }}
{{- $children := include "mcpbridge.childStopSeconds" . | atoi }}
{{- $margin := include "mcpbridge.seconds" (dict "value" .Values.drain.margin "name" "drain.margin") | atoi }}
{{- $override := .Values.drain.terminationGracePeriodSeconds }}
{{- if kindIs "invalid" $override }}
{{- add $delay $timeout $children $margin }}
{{- else }}
{{- if lt (int $override) (add $delay $timeout) }}
{{- fail (printf "drain.terminationGracePeriodSeconds (%d) is below drain.delay + drain.shutdownTimeout (%ds): the kubelet would kill the bridge while it drains" (int $override) (add $delay $timeout)) }}
{{- end }}
{{- int $override }}
{{- end }}
{{- end }}
