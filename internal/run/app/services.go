package app

import (
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
	"github.com/lazuli-storage/lazuli/internal/service/table"
)

// serviceEntry is one service the host can start.
type serviceEntry struct {
	name     string
	endpoint func(*config.Config) config.Endpoint
	build    func(server.Deps) (server.Service, error)
}

// services lists every service in start order; add a service here.
var services = []serviceEntry{
	{"blob", func(c *config.Config) config.Endpoint { return c.Blob }, func(d server.Deps) (server.Service, error) { return blob.New(d) }},
	{"queue", func(c *config.Config) config.Endpoint { return c.Queue }, func(d server.Deps) (server.Service, error) { return queue.New(d) }},
	{"table", func(c *config.Config) config.Endpoint { return c.Table }, func(d server.Deps) (server.Service, error) { return table.New(d) }},
	{"file", func(c *config.Config) config.Endpoint { return c.File }, func(d server.Deps) (server.Service, error) { return file.New(d) }},
}
