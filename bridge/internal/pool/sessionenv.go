package pool

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// refusedSessionEnv are the variables a session's child may not take from
// request metadata (SessionConfig.EnvFromMetadata), where a caller picks
// the value: each changes what the child's programs load or run, or where
// they look for it (the dynamic loader, shells, language runtimes, git,
// the C library, the temporary directory), or is the project's own (the
// reaper's variable: a child that is this binary would act on it). A
// trailing '*' makes a prefix; names compare without regard to case.
// docs/security.md, "Hardening", lists them.
var refusedSessionEnv = []string{
	"LD_*", "DYLD_*", "PATH", "HOME", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
	"NODE_OPTIONS", "NODE_PATH", "PYTHON*", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "MALLOC_*", "LUA_INIT*", "GIT_*", "TMPDIR",
	reaper.Env, "MCPBRIDGE_*",
}

// CheckSessionEnvName reports whether a session's variable may take its
// value from request metadata: nil, or why not.
func CheckSessionEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("%q is not an environment variable name", name)
	}
	upper := strings.ToUpper(name)
	for _, refused := range refusedSessionEnv {
		prefix, isPrefix := strings.CutSuffix(refused, "*")
		if upper == refused || isPrefix && strings.HasPrefix(upper, prefix) {
			return fmt.Errorf("%s may not be set from request metadata: a caller would choose what the child loads or runs (%s is refused)", name, refused)
		}
	}
	return nil
}

// credentialKeys are the metadata keys that carry the caller's own
// credentials to the bridge. They never reach a child: a bearer token
// (an OAuth access token above all, which was issued for the bridge and
// must not be passed on: docs/authorization.md) or a cookie in a child's
// environment is a credential the child could replay anywhere.
var credentialKeys = []string{"authorization", "cookie", "proxy-authorization"}

// CheckSessionEnvKey reports whether a session's variable may take its
// value from the metadata key: nil, or why not.
func CheckSessionEnvKey(key string) error {
	if slices.Contains(credentialKeys, strings.ToLower(key)) {
		return fmt.Errorf("the metadata key %q carries the caller's credentials, which never reach a child", key)
	}
	return nil
}

// controlChar is the index of the first control character of v (below
// 0x20, or 0x7f), -1 when it has none.
func controlChar(v string) int {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return i
		}
	}
	return -1
}
