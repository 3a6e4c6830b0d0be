{{- define "db-adapter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "db-adapter.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "db-adapter.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "db-adapter.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "db-adapter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "db-adapter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "db-adapter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "db-adapter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "db-adapter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "db-adapter.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "db-adapter.secretName" -}}
{{- default (include "db-adapter.fullname" .) .Values.auth.existingSecret -}}
{{- end -}}

{{- define "db-adapter.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* the adapter's variable for a flag name: the irregular names first, then DB_ADAPTER_ + SNAKE_CASE */}}
{{- define "db-adapter.envName" -}}
{{- $irregular := dict "cors.allowCredentials" "DB_ADAPTER_CORS_ALLOW_Credentials" "cors.allowHeaders" "DB_ADAPTER_ALLOW_HEADERS" "cors.allowOrigins" "DB_ADAPTER_ALLOW_ORIGINS" "cors.allowWebSockets" "DB_ADAPTER_CORS_ALLOW_WebSockets" "cors.exposeHeaders" "DB_ADAPTER_Expose_Headers" "dbConfigDir" "DB_ADAPTER_DB_CONFIG_FILE" -}}
{{- if hasKey $irregular . -}}
{{- get $irregular . -}}
{{- else -}}
{{- printf "DB_ADAPTER_%s" (regexReplaceAll "([A-Z]+)([A-Z][a-z])" (regexReplaceAll "([a-z0-9])([A-Z])" . "${1}_${2}") "${1}_${2}" | replace "." "_" | upper) -}}
{{- end -}}
{{- end -}}

{{/* a value as the adapter reads it from a variable: Helm loads every number in a values file as a
float64, which toString prints as 1e+06, so integral numbers print as integers; lists join with "," */}}
{{- define "db-adapter.scalar" -}}
{{- if kindIs "slice" . -}}
{{- $items := list -}}
{{- range . }}{{ $items = append $items (include "db-adapter.scalar" .) }}{{ end -}}
{{- join "," $items -}}
{{- else if and (kindIs "float64" .) (eq (float64 (int64 .)) .) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* a flag's configured value (or the default given) */}}
{{- define "db-adapter.flag" -}}
{{- $v := index .root.Values.config .name -}}
{{- if kindIs "invalid" $v -}}{{ .default }}{{- else -}}{{ include "db-adapter.scalar" $v }}{{- end -}}
{{- end -}}

{{- define "db-adapter.httpPort" -}}
{{- include "db-adapter.flag" (dict "root" . "name" "port" "default" 6041) -}}
{{- end -}}

{{/* "true" when a bool flag is on, spelled any way the adapter accepts; unset: the adapter's default */}}
{{- define "db-adapter.enabled" -}}
{{- $v := include "db-adapter.flag" (dict "root" .root "name" .name "default" (default false .default)) -}}
{{- if has $v (list "1" "t" "T" "TRUE" "true" "True") -}}true{{- end -}}
{{- end -}}

{{/* the collectd receiver's UDP port when it is on (collagent, on by default in the adapter), else "";
the only receiver this version has */}}
{{- define "db-adapter.collectdPort" -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "collagent.enable" "default" true) -}}
{{- include "db-adapter.flag" (dict "root" . "name" "collagent.port" "default" 6045) -}}
{{- end -}}
{{- end -}}

{{/* refuse values this version cannot honour */}}
{{- define "db-adapter.validate" -}}
{{- /* each receiver's description and its default in the adapter (unset or null: the default) */}}
{{- $receivers := dict "statsagent" (list "StatsD receiver" true) "tsdbproto_telnet" (list "OpenTSDB telnet TCP receivers" false) "hostexporter" (list "node_exporter scraper" false) }}
{{- range $flag, $r := $receivers }}
{{- $what := index $r 0 }}
{{- if include "db-adapter.enabled" (dict "root" $ "name" (printf "%s.enable" $flag) "default" (index $r 1)) }}
{{- fail (printf "config.%s.enable is on, but this version of db-adapter has no %s (it would only log a warning and receive nothing): set config.%s.enable=false" $flag $what $flag) }}
{{- end }}
{{- end }}
{{- range $name, $_ := .Values.config }}
{{- if regexMatch "(?i)password" $name }}
{{- fail (printf "config.%s is a password: passwords come from the Secret (auth.rootPassword, auth.collagentPassword, auth.monitorPassword or auth.existingSecret), not the ConfigMap" $name) }}
{{- end }}
{{- end }}
{{- if and (eq .Values.storage.mode "embedded") .Values.autoscaling.enabled }}
{{- fail "autoscaling needs storage.mode=postgres: embedded storage runs exactly one replica" }}
{{- end }}
{{- end -}}

{{/* the Secret key a password (auth.<name>: rootPassword, collagentPassword, monitorPassword) is read
from: its own key when set (auth.secretKeys.<name>, or the generated Secret's <name in kebab-case>
key, e.g. collagent-password, when auth.<name> is given), else the root password's key */}}
{{- define "db-adapter.passwordKey" -}}
{{- $keys := .root.Values.auth.secretKeys -}}
{{- $own := index $keys .name -}}
{{- if .root.Values.auth.existingSecret -}}
{{- default $keys.rootPassword $own -}}
{{- else if index .root.Values.auth .name -}}
{{- default (kebabcase .name) $own -}}
{{- else -}}
{{- $keys.rootPassword -}}
{{- end -}}
{{- end -}}

{{- define "db-adapter.replicas" -}}
{{- if eq .Values.storage.mode "embedded" -}}1{{- else -}}{{ .Values.replicaCount }}{{- end -}}
{{- end -}}

{{/* a probe: the custom one verbatim when given, else an httpGet on the http port from probes.<kind> */}}
{{- define "db-adapter.probe" -}}
{{- if .custom -}}
{{ .field }}:
  {{- toYaml .custom | nindent 2 }}
{{- else if .probe.enabled -}}
{{ .field }}:
  httpGet: {path: {{ .probe.path }}, port: http}
  {{- range $k := list "initialDelaySeconds" "periodSeconds" "timeoutSeconds" "successThreshold" "failureThreshold" }}
  {{- with index $.probe $k }}
  {{ $k }}: {{ . }}
  {{- end }}
  {{- end }}
{{- end -}}
{{- end -}}
