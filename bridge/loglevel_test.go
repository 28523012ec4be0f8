package bridge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// A legacy child that logs only once a level is set (the Go SDK server)
// logs for the bridge's readers: a Subscribe stream with log_level gets
// the tool's logs, and so does a tunnel after its own logging/setLevel;
// the child is told the most verbose level they need. The level reaches
// the child asynchronously, so each test calls the logging tool until
// logs arrive (at most ten times).
func TestLegacyChildLogsForItsReaders(t *testing.T) {
	t.Parallel()
	const tool = `{"name":"test_tool_with_logging","arguments":{}}`

	t.Run("Subscribe", func(t *testing.T) {
		b := startStreamsBridge(t, goSDKServer(t, "", protocol.Version20251125))
		ctx := testCtx(t)
		sub, err := b.client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO})
		if err != nil {
			t.Fatal(err)
		}
		if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
			t.Fatalf("Subscribe = %v, %v", ack, err)
		}
		logs := make(chan *mcpbridgev1.LogMessage, 64)
		go func() { // ends with the test's ctx
			defer close(logs)
			for {
				msg, err := sub.Recv()
				if err != nil {
					return
				}
				if l := msg.GetLog(); l != nil {
					logs <- l
				}
			}
		}()
		for attempt := 1; ; attempt++ {
			if _, err := b.client.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: tool}); err != nil {
				t.Fatal(err)
			}
			select {
			case l := <-logs:
				if l.GetLevel() < mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO {
					t.Errorf("a log below the stream's level: %v", l)
				}
				return
			case <-time.After(time.Second):
			}
			if attempt == 10 {
				t.Fatal("no log reached the Subscribe stream after ten calls of the logging tool")
			}
		}
	})

	t.Run("Connect", func(t *testing.T) {
		b := startStreamsBridge(t, goSDKServer(t, "", protocol.Version20251125))
		ctx := testCtx(t)
		tun := b.connect(ctx, t, "")
		tun.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"info"}}`)
		tun.response(`"lvl"`, nil)
		logged := 0
		count := func(_ wire.Message, text string) {
			if strings.Contains(text, `"notifications/message"`) {
				logged++
			}
		}
		for attempt := 1; logged == 0; attempt++ {
			if attempt > 10 {
				t.Fatal("no log reached the tunnel after its logging/setLevel and ten calls")
			}
			id := fmt.Sprintf(`"call%d"`, attempt)
			tun.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + tool + `}`)
			tun.response(id, count)
		}
	})
}
