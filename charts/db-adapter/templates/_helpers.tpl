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

{{/* a flag's configured value (or the default given) */}}
{{- define "db-adapter.flag" -}}
{{- $v := index .root.Values.config .name -}}
{{- if kindIs "invalid" $v -}}{{ .default }}{{- else -}}{{ $v }}{{- end -}}
{{- end -}}

{{- define "db-adapter.httpPort" -}}
{{- include "db-adapter.flag" (dict "root" . "name" "port" "default" 6041) -}}
{{- end -}}

{{- define "db-adapter.enabled" -}}
{{- $v := index .root.Values.config .name -}}
{{- if and (not (kindIs "invalid" $v)) (eq (toString $v) "true") -}}true{{- end -}}
{{- end -}}

{{/* receiver ports as "name protocol port" lines, from the receivers' own flags */}}
{{- define "db-adapter.receiverPorts" -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "collagent.enable") }}
collectd UDP {{ include "db-adapter.flag" (dict "root" . "name" "collagent.port" "default" 6045) }}
{{- end }}
{{- if include "db-adapter.enabled" (dict "root" . "name" "statsagent.enable") }}
statsd {{ include "db-adapter.flag" (dict "root" . "name" "statsagent.protocol" "default" "udp") | upper }} {{ include "db-adapter.flag" (dict "root" . "name" "statsagent.port" "default" 6044) }}
{{- end }}
{{- if include "db-adapter.enabled" (dict "root" . "name" "tsdbproto_telnet.enable") }}
{{- $ports := index .Values.config "tsdbproto_telnet.ports" | default (list 6046 6047 6048 6049) }}
{{- range $i, $p := $ports }}
telnet-{{ $i }} TCP {{ $p }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "db-adapter.replicas" -}}
{{- if eq .Values.storage.mode "embedded" -}}1{{- else -}}{{ .Values.replicaCount }}{{- end -}}
{{- end -}}
