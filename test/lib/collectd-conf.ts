/**
 * The opening of a collectd.conf for end-to-end tests: the host name, every path inside the
 * test's directory, one-second intervals and the log on stdout (kept by the test for failures).
 * Tests append the plugins they exercise.
 */
export function collectdConfHead(dir: string, host: string): string {
  return `Hostname "${host}"
FQDNLookup false
BaseDir "${dir}"
PIDFile "${dir}/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval 1
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File STDOUT
</Plugin>
`
}
