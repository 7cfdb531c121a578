package smb

import (
	"net"
	"net/http"
	"time"
)

// Limits bound what a client holds on the endpoint before and after it
// logs on, so that neither an unauthenticated peer nor a forgotten client
// keeps memory, a goroutine and a socket forever.
type Limits struct {
	// AuthTimeout closes a connection that has not completed a logon this
	// long after it was accepted (0: never).
	AuthTimeout time.Duration
	// IdleTimeout closes a logged-on connection that holds no open file
	// and sends nothing for this long (0: never), as Windows' server
	// autodisconnect does (15 minutes by default there); clients reconnect
	// on their next use.
	IdleTimeout time.Duration
	// MaxConns bounds the connections served at once; more wait in the
	// kernel's accept queue (0: no bound), as the HTTP listeners do.
	MaxConns int
	// ConnState, when set, learns of each connection's opening and closing
	// (StateNew, StateClosed): the open-connection metric.
	ConnState func(net.Conn, http.ConnState)
}

// maxPendingSessions bounds the logons in progress on one connection: each
// holds its NTLM challenge state until authenticated. Beyond it a new
// SESSION_SETUP is refused with STATUS_INSUFFICIENT_RESOURCES, Samba's
// answer when its session table is full (smbXsrv_session_create).
const maxPendingSessions = 16

func (l Limits) track(c net.Conn, state http.ConnState) {
	if l.ConnState != nil {
		l.ConnState(c, state)
	}
}

// readDeadline is when the next read gives up: the logon deadline until
// the first logon, then the idle timeout while no file is open; none
// otherwise (an open file, or a pending CHANGE_NOTIFY or lock on one, keeps
// the connection).
func (c *conn) readDeadline(now time.Time) time.Time {
	lim := c.srv.Limits
	switch {
	case !c.loggedOn && lim.AuthTimeout > 0:
		return c.accepted.Add(lim.AuthTimeout)
	case c.loggedOn && lim.IdleTimeout > 0 && !c.holdsOpens():
		return now.Add(lim.IdleTimeout)
	}
	return time.Time{}
}

// holdsOpens reports whether any session of the connection has a file open.
func (c *conn) holdsOpens() bool {
	for _, s := range c.sessions {
		for _, t := range s.trees {
			if len(t.opens) > 0 {
				return true
			}
		}
	}
	return false
}
