package queue

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/route"
)

// table is the Queue service's operations, by method, level, restype and
// comp (Queue service REST API).
func (s *Service) table() route.Table {
	const (
		get, put, post, del, head = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead
	)
	return route.Table{
		// The account's queue service.
		{Op: "ListQueues", Method: get, Level: route.Service, Comp: "list", Handle: op(s.listQueues)},
		{Op: "GetQueueServiceProperties", Method: get, Level: route.Service, Restype: "service", Comp: "properties", Handle: op(s.getProperties)},
		{Op: "SetQueueServiceProperties", Method: put, Level: route.Service, Restype: "service", Comp: "properties", Handle: op(s.setProperties)},
		{Op: "GetQueueServiceStats", Method: get, Level: route.Service, Restype: "service", Comp: "stats", Handle: op(s.getStats)},
		{Op: "GetUserDelegationKey", Method: post, Level: route.Service, Restype: "service", Comp: "userdelegationkey", Handle: op(s.getUserDelegationKey)},

		// A queue.
		{Op: "CreateQueue", Method: put, Level: route.Container, Handle: op(s.createQueue)},
		{Op: "DeleteQueue", Method: del, Level: route.Container, Handle: op(s.deleteQueue)},
		{Op: "GetQueueMetadata", Method: get, Level: route.Container, Comp: "metadata", Handle: op(s.getMetadata)},
		{Op: "GetQueueMetadata", Method: head, Level: route.Container, Comp: "metadata", Handle: op(s.getMetadata)},
		{Op: "SetQueueMetadata", Method: put, Level: route.Container, Comp: "metadata", Handle: op(s.setMetadata)},
		{Op: "GetQueueACL", Method: get, Level: route.Container, Comp: "acl", Handle: op(s.getACL)},
		{Op: "GetQueueACL", Method: head, Level: route.Container, Comp: "acl", Handle: op(s.getACL)},
		{Op: "SetQueueACL", Method: put, Level: route.Container, Comp: "acl", Handle: op(s.setACL)},

		// The messages of a queue.
		{Op: "PutMessage", Method: post, Level: levelMessages, Handle: op(s.putMessage)},
		{Op: "GetMessages", Method: get, Level: levelMessages, Handle: op(s.getMessages)},
		{Op: "ClearMessages", Method: del, Level: levelMessages, Handle: op(s.clearMessages)},

		// One message, addressed by id and pop receipt.
		{Op: "DeleteMessage", Method: del, Level: levelMessage, Handle: op(s.deleteMessage)},
		{Op: "UpdateMessage", Method: put, Level: levelMessage, Handle: op(s.updateMessage)},
	}
}
