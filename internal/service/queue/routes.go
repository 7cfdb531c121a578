package queue

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// table is the Queue service's operations, by method, level, restype and
// comp (Queue service REST API), each with who may call it: the letters of
// Azure's "Create an account SAS" and "Create a service SAS" pages. A queue
// SAS reaches messages and the queue's metadata only.
func (s *Service) table() route.Table {
	const (
		get, put, post, del, head = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead
	)
	return route.Table{
		// The account's queue service.
		{Op: "ListQueues", Method: get, Level: route.Service, Comp: "list", Access: auth.OnService("l").NoServiceSAS(), Handle: op(s.listQueues)},
		{Op: "GetQueueServiceProperties", Method: get, Level: route.Service, Restype: "service", Comp: "properties", Access: auth.OnService("r").NoServiceSAS(), Handle: op(s.getProperties)},
		{Op: "SetQueueServiceProperties", Method: put, Level: route.Service, Restype: "service", Comp: "properties", Access: auth.OnService("w").NoServiceSAS(), Handle: op(s.setProperties)},
		{Op: "GetQueueServiceStats", Method: get, Level: route.Service, Restype: "service", Comp: "stats", SecondaryOnly: true, Access: auth.OnService("r").NoServiceSAS(), Handle: op(s.getStats)},
		{Op: "GetUserDelegationKey", Method: post, Level: route.Service, Restype: "service", Comp: "userdelegationkey", Access: auth.OAuthOnly(), Handle: op(s.getUserDelegationKey)},

		// A queue.
		{Op: "CreateQueue", Method: put, Level: route.Container, Access: auth.OnContainer("cw").NoServiceSAS(), Handle: op(s.createQueue)},
		{Op: "DeleteQueue", Method: del, Level: route.Container, Access: auth.OnContainer("d").NoServiceSAS(), Handle: op(s.deleteQueue)},
		{Op: "GetQueueMetadata", Method: get, Level: route.Container, Comp: "metadata", Access: auth.OnContainer("r"), Handle: op(s.getMetadata)},
		{Op: "GetQueueMetadata", Method: head, Level: route.Container, Comp: "metadata", Access: auth.OnContainer("r"), Handle: op(s.getMetadata)},
		{Op: "SetQueueMetadata", Method: put, Level: route.Container, Comp: "metadata", Access: auth.OnContainer("w").NoServiceSAS(), Handle: op(s.setMetadata)},
		{Op: "GetQueueACL", Method: get, Level: route.Container, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: op(s.getACL)},
		{Op: "GetQueueACL", Method: head, Level: route.Container, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: op(s.getACL)},
		{Op: "SetQueueACL", Method: put, Level: route.Container, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: op(s.setACL)},

		// The messages of a queue.
		{Op: "PutMessage", Method: post, Level: levelMessages, Access: auth.OnObject("a"), Handle: op(s.putMessage)},
		{Op: "PeekMessages", Method: get, Level: levelMessages, When: []route.Cond{route.QueryIs("peekonly", "true")}, Access: auth.OnObject("r"), Handle: op(s.getMessages)},
		{Op: "GetMessages", Method: get, Level: levelMessages, Access: auth.OnObject("p"), Handle: op(s.getMessages)},
		{Op: "ClearMessages", Method: del, Level: levelMessages, Access: auth.OnObject("d").NoServiceSAS(), Handle: op(s.clearMessages)},

		// One message, addressed by id and pop receipt.
		{Op: "DeleteMessage", Method: del, Level: levelMessage, Access: auth.OnObject("p"), Handle: op(s.deleteMessage)},
		{Op: "UpdateMessage", Method: put, Level: levelMessage, Access: auth.OnObject("u"), Handle: op(s.updateMessage)},
	}
}
