package table

import (
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// routeTable lists every Table service operation, each with who may call
// it: the letters of Azure's "Create an account SAS" and "Create a service
// SAS" pages. A table SAS reaches the entities of its table only; an upsert
// (no If-Match) needs add and update.
func (s *Service) routeTable() route.Table {
	const xMethod = "X-HTTP-Method"
	return route.Table{
		{Op: "GetTableServiceProperties", Method: "GET", Level: levelService, Restype: "service", Comp: "properties", Access: auth.OnService("r").NoServiceSAS(), Handle: s.getProperties},
		{Op: "SetTableServiceProperties", Method: "PUT", Level: levelService, Restype: "service", Comp: "properties", Access: auth.OnService("w").NoServiceSAS(), Handle: s.setProperties},
		{Op: "GetTableServiceStats", Method: "GET", Level: levelService, Restype: "service", Comp: "stats", SecondaryOnly: true, Access: auth.OnService("r").NoServiceSAS(), Handle: s.getStats},

		{Op: "CreateTable", Method: "POST", Level: levelTables, Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createTable},
		{Op: "QueryTables", Method: "GET", Level: levelTables, Access: auth.OnContainer("l").NoServiceSAS(), Handle: s.queryTables},
		{Op: "GetTable", Method: "GET", Level: levelTable, Access: auth.OnContainer("l").NoServiceSAS(), Handle: s.getTable},
		{Op: "DeleteTable", Method: "DELETE", Level: levelTable, Access: auth.OnContainer("d").NoServiceSAS(), Handle: s.deleteTable},

		{Op: "GetTableACL", Method: "GET", Level: levelTableRes, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.getACL},
		{Op: "GetTableACL", Method: "HEAD", Level: levelTableRes, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.getACL},
		{Op: "SetTableACL", Method: "PUT", Level: levelTableRes, Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.setACL},

		{Op: "InsertEntity", Method: "POST", Level: levelTableRes, Access: auth.OnObject("a"), Handle: s.insertEntity},
		{Op: "QueryEntities", Method: "GET", Level: levelTableRes, Access: auth.OnObject("r"), Handle: s.queryEntities},
		{Op: "QueryEntities", Method: "GET", Level: levelEntities, Access: auth.OnObject("r"), Handle: s.queryEntities},
		{Op: "InsertEntity", Method: "POST", Level: levelEntities, Access: auth.OnObject("a"), Handle: s.insertEntity},

		{Op: "GetEntity", Method: "GET", Level: levelEntity, Access: auth.OnObject("r"), Handle: s.getEntity},
		{Op: "UpdateEntity", Method: "PUT", Level: levelEntity, When: []route.Cond{route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.updateEntity},
		{Op: "InsertOrReplaceEntity", Method: "PUT", Level: levelEntity, Access: auth.OnObject("a").And("u"), Handle: s.updateEntity},
		{Op: "MergeEntity", Method: "MERGE", Level: levelEntity, When: []route.Cond{route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.mergeEntity},
		{Op: "InsertOrMergeEntity", Method: "MERGE", Level: levelEntity, Access: auth.OnObject("a").And("u"), Handle: s.mergeEntity},
		{Op: "MergeEntity", Method: "PATCH", Level: levelEntity, When: []route.Cond{route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.mergeEntity},
		{Op: "InsertOrMergeEntity", Method: "PATCH", Level: levelEntity, Access: auth.OnObject("a").And("u"), Handle: s.mergeEntity},
		{Op: "DeleteEntity", Method: "DELETE", Level: levelEntity, Access: auth.OnObject("d"), Handle: s.deleteEntity},

		// The verb tunnel (POST with X-HTTP-Method) of clients that cannot
		// send MERGE; anything else posted to an entity is refused by the
		// last row's handler (405, or 400 for an unknown verb).
		{Op: "InsertOrMergeEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "MERGE"), route.HeaderUnset("If-Match")}, Access: auth.OnObject("a").And("u"), Handle: s.tunnelEntity},
		{Op: "MergeEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "MERGE"), route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.tunnelEntity},
		{Op: "InsertOrMergeEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "PATCH"), route.HeaderUnset("If-Match")}, Access: auth.OnObject("a").And("u"), Handle: s.tunnelEntity},
		{Op: "MergeEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "PATCH"), route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.tunnelEntity},
		{Op: "InsertOrReplaceEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "PUT"), route.HeaderUnset("If-Match")}, Access: auth.OnObject("a").And("u"), Handle: s.tunnelEntity},
		{Op: "UpdateEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "PUT"), route.HeaderSet("If-Match")}, Access: auth.OnObject("u"), Handle: s.tunnelEntity},
		{Op: "DeleteEntity", Method: "POST", Level: levelEntity, When: []route.Cond{route.HeaderIs(xMethod, "DELETE")}, Access: auth.OnObject("d"), Handle: s.tunnelEntity},
		{Op: "TunnelledEntityOp", Method: "POST", Level: levelEntity, Access: auth.OnObject("raud"), Handle: s.tunnelEntity},

		// Each operation of a batch is authorized as its own row says
		// (batch.go); an anonymous batch is refused whole.
		{Op: "EntityGroupTransaction", Method: "POST", Level: levelBatch, Access: auth.PartsAuthorized().ForbidAnonymous(), Handle: s.batch},
	}
}
