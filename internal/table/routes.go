package table

import "github.com/lazuli-storage/lazuli/internal/route"

// routeTable lists every Table service operation.
func (s *Service) routeTable() route.Table {
	return route.Table{
		{Op: "GetTableServiceProperties", Method: "GET", Level: levelService, Restype: "service", Comp: "properties", Handle: s.getProperties},
		{Op: "SetTableServiceProperties", Method: "PUT", Level: levelService, Restype: "service", Comp: "properties", Handle: s.setProperties},
		{Op: "GetTableServiceStats", Method: "GET", Level: levelService, Restype: "service", Comp: "stats", Handle: s.getStats},

		{Op: "CreateTable", Method: "POST", Level: levelTables, Handle: s.createTable},
		{Op: "QueryTables", Method: "GET", Level: levelTables, Handle: s.queryTables},
		{Op: "GetTable", Method: "GET", Level: levelTable, Handle: s.getTable},
		{Op: "DeleteTable", Method: "DELETE", Level: levelTable, Handle: s.deleteTable},

		{Op: "GetTableACL", Method: "GET", Level: levelTableRes, Comp: "acl", Handle: s.getACL},
		{Op: "GetTableACL", Method: "HEAD", Level: levelTableRes, Comp: "acl", Handle: s.getACL},
		{Op: "SetTableACL", Method: "PUT", Level: levelTableRes, Comp: "acl", Handle: s.setACL},

		{Op: "InsertEntity", Method: "POST", Level: levelTableRes, Handle: s.insertEntity},
		{Op: "QueryEntities", Method: "GET", Level: levelTableRes, Handle: s.queryEntities},
		{Op: "QueryEntities", Method: "GET", Level: levelEntities, Handle: s.queryEntities},
		{Op: "InsertEntity", Method: "POST", Level: levelEntities, Handle: s.insertEntity},

		{Op: "GetEntity", Method: "GET", Level: levelEntity, Handle: s.getEntity},
		{Op: "UpdateEntity", Method: "PUT", Level: levelEntity, Handle: s.updateEntity},
		{Op: "MergeEntity", Method: "MERGE", Level: levelEntity, Handle: s.mergeEntity},
		{Op: "MergeEntity", Method: "PATCH", Level: levelEntity, Handle: s.mergeEntity},
		{Op: "TunnelledEntityOp", Method: "POST", Level: levelEntity, Handle: s.tunnelEntity},
		{Op: "DeleteEntity", Method: "DELETE", Level: levelEntity, Handle: s.deleteEntity},

		{Op: "EntityGroupTransaction", Method: "POST", Level: levelBatch, Handle: s.batch},
	}
}
