package bridge

import (
	"encoding/json"
	"fmt"
	"testing"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// BenchmarkListenFanOut measures what one event of a shared listen costs
// the bridge per stream that shares it: the pump converts it once and
// queues it for every listener that wants it, and each stream's handler
// takes its queue (every 32 events here; the gRPC send is not counted).
// "matching" streams want the event, "filtered" ones asked for another
// URI. ns/delivery is the time per event per stream.
func BenchmarkListenFanOut(b *testing.B) {
	ev := stdio.Event{
		Method: "notifications/resources/updated",
		Params: json.RawMessage(`{"uri":"test://r","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`),
	}
	for _, uri := range []string{"test://r", "test://other"} {
		kind := "matching"
		if uri != "test://r" {
			kind = "filtered"
		}
		for _, n := range []int{1, 100, 10000} {
			b.Run(fmt.Sprintf("%s/streams=%d", kind, n), func(b *testing.B) {
				h := &listens{}
				s := &sharedListen{members: map[*listener]struct{}{}}
				ls := make([]*listener, n)
				for i := range ls {
					ls[i] = newListener(&mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{uri}})
					ls[i].filter = ls[i].want
					s.members[ls[i]] = struct{}{}
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					h.fanOut(s, ev)
					if i%32 == 31 {
						for _, l := range ls {
							l.events.Take()
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
			})
		}
	}
}
