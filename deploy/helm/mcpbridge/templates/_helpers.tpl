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
mcpbridge.seconds: a duration of Go's syntax, restricted to whole numbers
of h, m, s and ms ("5s", "1m30s", "500ms"), as whole seconds rounded up.
Takes (dict "value" V "name" "drain.delay"); the name is for the error.
*/}}
{{- define "mcpbridge.seconds" -}}
{{- $d := toString .value }}
{{- if not (regexMatch "^([0-9]+(ms|h|m|s))+$" $d) }}
{{- fail (printf "%s: %q is not a duration such as 5s, 1m30s or 500ms" .name $d) }}
{{- end }}
{{- $ms := 0 }}
{{- range regexFindAll "[0-9]+(ms|h|m|s)" $d -1 }}
{{- $n := regexFind "^[0-9]+" . | atoi }}
{{- $unit := regexReplaceAll "^[0-9]+" . "" }}
{{- if eq $unit "h" }}{{ $ms = add $ms (mul $n 3600000) }}
{{- else if eq $unit "m" }}{{ $ms = add $ms (mul $n 60000) }}
{{- else if eq $unit "s" }}{{ $ms = add $ms (mul $n 1000) }}
{{- else }}{{ $ms = add $ms $n }}
{{- end }}
{{- end }}
{{- div (add $ms 999) 1000 }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the drain delay, the shutdown timeout, the
children's stop and a margin, unless drain.terminationGracePeriodSeconds
overrides it; an override below delay + shutdown timeout fails the render,
since the kubelet would kill the bridge while calls are still draining.
*/}}
{{- define "mcpbridge.terminationGracePeriodSeconds" -}}
{{- $delay := include "mcpbridge.seconds" (dict "value" .Values.drain.delay "name" "drain.delay") | atoi }}
{{- $timeout := include "mcpbridge.seconds" (dict "value" .Values.drain.shutdownTimeout "name" "drain.shutdownTimeout") | atoi }}
{{- $children := include "mcpbridge.seconds" (dict "value" .Values.drain.childStop "name" "drain.childStop") | atoi }}
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
