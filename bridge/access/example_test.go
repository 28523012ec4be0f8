package access_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// An Authenticator with one API key, which the configuration stores only
// as its SHA-256, checks the bearer credential of incoming gRPC calls.
// bridge.Config.Auth takes such an Authenticator; the bridge authenticates
// each call this way when its headers arrive, before its message is read.
func Example() {
	auth, err := access.New(context.Background(), access.Config{
		APIKeys: []access.APIKey{{Principal: "ci-bot", SHA256: access.HashKey("s3cret-key"), Groups: []string{"ci"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	call := func(authorization string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", authorization))
	}

	p, err := auth.Authenticate(call("Bearer s3cret-key"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.ID(), p.Groups)

	_, err = auth.Authenticate(call("Bearer wrong-key"))
	fmt.Println(err)
	// Output:
	// apikey:ci-bot [ci]
	// authentication required
}

// Rules allow callers, by principal, group or claim, to use servers and
// their tools, resources and prompts; what no rule allows is denied.
// bridge.Config.Rules takes them.
func ExampleRules_Allow() {
	rules := access.Rules{
		{Groups: []string{"ci"}, Servers: []string{"weather"}, Tools: []string{"forecast", "read_*"}},
		{Principals: []string{"jwt:alice"}, Servers: []string{"*"}, Tools: []string{"*"}},
	}
	if err := rules.Check(); err != nil {
		log.Fatal(err)
	}
	bot := &access.Principal{Name: "ci-bot", Method: "apikey", Groups: []string{"ci"}}
	fmt.Println(rules.Allow(bot, "weather", access.Tool, "forecast"))
	fmt.Println(rules.Allow(bot, "weather", access.Tool, "read_station"))
	fmt.Println(rules.Allow(bot, "weather", access.Tool, "delete_city"))
	fmt.Println(rules.Allow(bot, "files", access.Server, ""))

	alice := &access.Principal{Name: "alice", Method: "jwt"}
	fmt.Println(rules.Allow(alice, "files", access.Tool, "delete"))
	// Output:
	// true
	// true
	// false
	// false
	// true
}
