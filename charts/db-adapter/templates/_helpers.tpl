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

{{/* registry/repository:tag, or @digest when image.digest is set; global.imageRegistry wins over
image.registry (as in Bitnami's charts, so a parent chart can point every image at a mirror) */}}
{{- define "db-adapter.image" -}}
{{- $registry := .Values.global.imageRegistry | default .Values.image.registry -}}
{{- $repository := .Values.image.repository -}}
{{- if $registry }}{{ $repository = printf "%s/%s" $registry $repository }}{{ end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* global.imagePullSecrets then imagePullSecrets, each a name or a {name: ...} object, without repeats */}}
{{- define "db-adapter.imagePullSecrets" -}}
{{- $names := list -}}
{{- range concat (.Values.global.imagePullSecrets | default list) (.Values.imagePullSecrets | default list) -}}
{{- $name := . -}}
{{- if kindIs "map" . }}{{ $name = .name }}{{ end -}}
{{- if not (has $name $names) }}{{ $names = append $names $name }}{{ end -}}
{{- end -}}
{{- if $names }}
imagePullSecrets:
{{- range $names }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* root's password in the generated Secret: auth.rootPassword when given, else the one the
Secret already holds (so upgrades keep it; `helm template` and --dry-run see no cluster, and
print a new one), else a new random one */}}
{{- define "db-adapter.rootPassword" -}}
{{- if .Values.auth.rootPassword -}}
{{- .Values.auth.rootPassword -}}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "db-adapter.fullname" .) -}}
{{- $stored := "" -}}
{{- if and $existing $existing.data -}}
{{- $stored = index $existing.data .Values.auth.secretKeys.rootPassword | default "" -}}
{{- end -}}
{{- if $stored }}{{ b64dec $stored }}{{ else }}{{ randAlphaNum 24 }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* a duration as the adapter writes them (300ms, 25s, 2m, 1h, 1m30s; a bare number is ms), in
milliseconds; "" when it cannot tell */}}
{{- define "db-adapter.durationMs" -}}
{{- $text := toString . -}}
{{- if regexMatch "^[0-9]+$" $text -}}
{{- $text -}}
{{- else if regexMatch "^([0-9]+(ms|s|m|h))+$" $text -}}
{{- $ms := 0 -}}
{{- range regexFindAll "[0-9]+(ms|s|m|h)" $text -1 -}}
{{- $n := int (regexFind "^[0-9]+" .) -}}
{{- $unit := trimPrefix (toString $n) . -}}
{{- $ms = add $ms (mul $n (get (dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000) $unit)) -}}
{{- end -}}
{{- $ms -}}
{{- end -}}
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

{{/* the management server's port (manager.port) when it is on (manager.enable, default true), else empty */}}
{{- define "db-adapter.managerPort" -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "manager.enable" "default" true) -}}
{{- include "db-adapter.flag" (dict "root" . "name" "manager.port" "default" 6060) -}}
{{- end -}}
{{- end -}}

{{/* "true" when a bool flag is on, spelled any way the adapter accepts; unset: the adapter's default */}}
{{- define "db-adapter.enabled" -}}
{{- $v := include "db-adapter.flag" (dict "root" .root "name" .name "default" (default false .default)) -}}
{{- if has $v (list "1" "t" "T" "TRUE" "true" "True") -}}true{{- end -}}
{{- end -}}

{{/* a list flag's items as strings, in JSON {"items": [...]}: a YAML list, or a comma-separated
string as in the variable; unset: the default given */}}
{{- define "db-adapter.listFlag" -}}
{{- $v := index .root.Values.config .name -}}
{{- if kindIs "invalid" $v }}{{ $v = .default }}{{ end -}}
{{- $items := list -}}
{{- if kindIs "slice" $v -}}
{{- range $v }}{{ $items = append $items (include "db-adapter.scalar" .) }}{{ end -}}
{{- else -}}
{{- range splitList "," (toString $v) }}{{ with trim . }}{{ $items = append $items . }}{{ end }}{{ end -}}
{{- end -}}
{{- toJson (dict "items" $items) -}}
{{- end -}}

{{/* the StatsD receiver's protocol as Kubernetes spells it (UDP or TCP; the adapter accepts any case) */}}
{{- define "db-adapter.statsdProtocol" -}}
{{- upper (include "db-adapter.flag" (dict "root" . "name" "statsagent.protocol" "default" "udp")) -}}
{{- end -}}

{{/* the listening ports of the enabled receivers, as JSON {"ports": [{name, port, protocol, flag}]}
(each unset flag at the adapter's default): collectd (collagent, UDP, on by default), StatsD
(statsagent, UDP or TCP as statsagent.protocol says, on by default), one TCP port per OpenTSDB
telnet listener (tsdbproto_telnet, off by default) named telnet-0, telnet-1, ... (port names are
unique and at most 15 characters). The node_exporter scraper listens on nothing. UDP ports go in
the <fullname>-udp Service, TCP ones in the main Service. */}}
{{- define "db-adapter.receiverPorts" -}}
{{- $ports := list -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "collagent.enable" "default" true) -}}
{{- $ports = append $ports (dict "name" "collectd" "flag" "collagent.port" "protocol" "UDP" "port" (include "db-adapter.flag" (dict "root" . "name" "collagent.port" "default" 6045))) -}}
{{- end -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "statsagent.enable" "default" true) -}}
{{- $ports = append $ports (dict "name" "statsd" "flag" "statsagent.port" "protocol" (include "db-adapter.statsdProtocol" .) "port" (include "db-adapter.flag" (dict "root" . "name" "statsagent.port" "default" 6044))) -}}
{{- end -}}
{{- if include "db-adapter.enabled" (dict "root" . "name" "tsdbproto_telnet.enable") -}}
{{- range $i, $port := (fromYaml (include "db-adapter.listFlag" (dict "root" . "name" "tsdbproto_telnet.ports" "default" (list 6046 6047 6048 6049)))).items -}}
{{- $ports = append $ports (dict "name" (printf "telnet-%d" $i) "flag" "tsdbproto_telnet.ports" "protocol" "TCP" "port" $port) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "ports" $ports) -}}
{{- end -}}

{{/* the enabled receivers' ports of one protocol (.protocol), as JSON {"ports": [...]} */}}
{{- define "db-adapter.receiverPortsOf" -}}
{{- $ports := list -}}
{{- range (fromYaml (include "db-adapter.receiverPorts" .root)).ports }}
{{- if eq .protocol $.protocol }}{{ $ports = append $ports . }}{{ end }}
{{- end -}}
{{- toJson (dict "ports" $ports) -}}
{{- end -}}

{{/* refuse values the adapter would refuse at start, or that would leak a secret into the ConfigMap */}}
{{- define "db-adapter.validate" -}}
{{- $protocol := include "db-adapter.statsdProtocol" . }}
{{- if not (has $protocol (list "UDP" "TCP")) }}
{{- fail (printf "config.statsagent.protocol is %q: it must be udp or tcp" (include "db-adapter.flag" (dict "root" . "name" "statsagent.protocol"))) }}
{{- end }}
{{- /* the adapter refuses to start when they differ, enabled or not */}}
{{- $telnetPorts := (fromYaml (include "db-adapter.listFlag" (dict "root" . "name" "tsdbproto_telnet.ports" "default" (list 6046 6047 6048 6049)))).items }}
{{- $telnetDbs := (fromYaml (include "db-adapter.listFlag" (dict "root" . "name" "tsdbproto_telnet.dbs" "default" (list "tsdbproto_telnet" "collagent_tsdb" "agentb_tsdb" "agentc_tsdb")))).items }}
{{- if ne (len $telnetPorts) (len $telnetDbs) }}
{{- fail (printf "config.tsdbproto_telnet.ports (%d: %s) and config.tsdbproto_telnet.dbs (%d: %s) pair by position and must have the same length" (len $telnetPorts) (join "," $telnetPorts) (len $telnetDbs) (join "," $telnetDbs)) }}
{{- end }}
{{- /* one listener per port and protocol, the HTTP port included */}}
{{- $seen := dict (printf "TCP/%s" (include "db-adapter.httpPort" .)) "port" }}
{{- range (fromYaml (include "db-adapter.receiverPorts" .)).ports }}
{{- $key := printf "%s/%s" .protocol .port }}
{{- if hasKey $seen $key }}
{{- fail (printf "config.%s and config.%s both use %s port %s: each listener needs a port of its own" (get $seen $key) .flag .protocol .port) }}
{{- end }}
{{- $_ := set $seen $key .flag }}
{{- end }}
{{- $auth := dict "auth.rootPassword" "rootPassword" "collagent.password" "collagentPassword" "monitor.password" "monitorPassword" "statsagent.password" "statsagentPassword" "tsdbproto_telnet.password" "tsdbprotoTelnetPassword" "hostexporter.password" "hostexporterPassword" "hostexporter.httpPassword" "hostexporterHttpPassword" "hostexporter.httpBearerTokenString" "hostexporterHttpBearerToken" }}
{{- range $name, $_ := .Values.config }}
{{- if regexMatch "(?i)password|tokenstring" $name }}
{{- fail (printf "config.%s is a secret and would land in the ConfigMap: set auth.%s (stored in the generated Secret), or its key in auth.existingSecret (auth.secretKeys.%s)" $name (get $auth $name | default "<name>") (get $auth $name | default "<name>")) }}
{{- end }}
{{- end }}
{{- /* the drain must end before the kubelet's SIGKILL, which counts from the preStop hook's start */}}
{{- with include "db-adapter.durationMs" (include "db-adapter.flag" (dict "root" . "name" "shutdown.gracePeriod" "default" "25s")) }}
{{- $stop := add (mul (int $.Values.preStopSleepSeconds) 1000) (int .) }}
{{- if and (not $.Values.lifecycle) (ge $stop (mul (int $.Values.terminationGracePeriodSeconds) 1000)) }}
{{- fail (printf "preStopSleepSeconds (%ds) + config.shutdown.gracePeriod (%dms) must stay below terminationGracePeriodSeconds (%ds): the kubelet kills the container then" (int $.Values.preStopSleepSeconds) (int .) (int $.Values.terminationGracePeriodSeconds)) }}
{{- end }}
{{- end }}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.parentRefs) }}
{{- fail "httpRoute.enabled needs httpRoute.parentRefs: the Gateway(s) the route attaches to" }}
{{- end }}
{{- if and (eq .Values.storage.mode "embedded") .Values.autoscaling.enabled }}
{{- fail "autoscaling needs storage.mode=postgres: embedded storage runs exactly one replica" }}
{{- end }}
{{- end -}}

{{/* the Secret variables: each password (auth.<name>) and the adapter variable it feeds */}}
{{- define "db-adapter.passwordVariables" -}}
{{- toJson (dict "rootPassword" "DB_ADAPTER_AUTH_ROOT_PASSWORD" "collagentPassword" "DB_ADAPTER_COLLAGENT_PASSWORD" "monitorPassword" "DB_ADAPTER_MONITOR_PASSWORD" "statsagentPassword" "DB_ADAPTER_STATSAGENT_PASSWORD" "tsdbprotoTelnetPassword" "DB_ADAPTER_TSDBPROTO_TELNET_PASSWORD" "hostexporterPassword" "DB_ADAPTER_HOSTEXPORTER_PASSWORD") -}}
{{- end -}}

{{/* the node_exporter scraper's credentials toward the exporters (auth.<name>), not database
passwords: empty in the adapter, so set only when given */}}
{{- define "db-adapter.exporterSecretVariables" -}}
{{- toJson (dict "hostexporterHttpPassword" "DB_ADAPTER_HOSTEXPORTER_HTTP_PASSWORD" "hostexporterHttpBearerToken" "DB_ADAPTER_HOSTEXPORTER_HTTP_BEARER_TOKEN_STRING") -}}
{{- end -}}

{{/* the Secret key of an exporter credential (auth.<name>), or "" when there is none: the existing
Secret's auth.secretKeys.<name>, or the generated Secret's <name in kebab-case> key when
auth.<name> is given */}}
{{- define "db-adapter.optionalSecretKey" -}}
{{- $own := index .root.Values.auth.secretKeys .name -}}
{{- if .root.Values.auth.existingSecret -}}
{{- $own -}}
{{- else if index .root.Values.auth .name -}}
{{- default (kebabcase .name) $own -}}
{{- end -}}
{{- end -}}

{{/* the Secret key a password (auth.<name>: rootPassword, collagentPassword, monitorPassword,
statsagentPassword, tsdbprotoTelnetPassword, hostexporterPassword) is read from: its own key when set (auth.secretKeys.<name>, or the generated Secret's <name in kebab-case>
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
