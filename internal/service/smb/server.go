// Package smb is the File service's SMB2/3 endpoint: dialects 2.0.2 to
// 3.1.1 with NTLMv2 logons (user = storage account, password = account key
// as its base64 text), signing, and the file commands over the same
// records and ranges the REST File service serves (file.SMBFS). Every open
// is recorded on its file, where REST operations honour its share mode and
// delete-pending state (package smbstate). Encryption is AES-128-GCM on
// 3.1.1 only, at the client's request or required by Policy; no oplocks,
// leases or durable handles are offered. MessageIds and credits follow
// MS-SMB2's sequence window (credits.go).
package smb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/frame/changefeed"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/locks"
	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// maxMessage bounds one transport frame (8 MiB payload plus headers).
const maxMessage = 8<<20 + 64<<10

// maxIO is MaxReadSize, MaxWriteSize and MaxTransactSize (smbd uses 8 MiB).
const maxIO = 8 << 20

// Server is the SMB endpoint.
type Server struct {
	// Policy is what every session must do (sign, encrypt); set it
	// before Serve.
	Policy Policy

	fs       *file.SMBFS
	accounts *auth.Accounts
	clock    clock.Clock
	logger   *slog.Logger
	guid     [16]byte
	started  time.Time
	locks    *locks.Table
	// changes rings after this node's writes, REST and SMB, waking the
	// pending CHANGE_NOTIFY requests.
	changes *changefeed.Feed

	// Limits bound what clients may hold; set them before Listen.
	Limits Limits

	mu    sync.Mutex
	ln    net.Listener
	conns map[*conn]struct{}
	wg    sync.WaitGroup
}

// New builds the endpoint over fs for accounts; byte-range locks go in
// table, which the REST File service consults too, and changes is the
// feed this process's writes ring (nil: only the SMB endpoint's own).
func New(fs *file.SMBFS, table *locks.Table, changes *changefeed.Feed, accounts *auth.Accounts, c clock.Clock, logger *slog.Logger) *Server {
	if c == nil {
		c = clock.Real{}
	}
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{fs: fs, accounts: accounts, clock: c, logger: logger, started: c.Now(),
		conns: map[*conn]struct{}{}, locks: table, changes: changes}
	if s.locks == nil {
		s.locks = locks.New()
	}
	if s.changes == nil {
		s.changes = &changefeed.Feed{}
	}
	s.guid = guid.NewRaw()
	return s
}

// Listen binds addr; Serve then accepts connections.
func (s *Server) Listen(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.ln = server.LimitConns(ln, s.Limits.MaxConns)
	s.mu.Unlock()
	return ln.Addr(), nil
}

// Serve accepts connections until Close.
func (s *Server) Serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		cn := newConn(s, c)
		s.mu.Lock()
		s.conns[cn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		s.Limits.track(c, http.StateNew)
		go func() {
			defer s.wg.Done()
			cn.serve()
			s.mu.Lock()
			delete(s.conns, cn)
			s.mu.Unlock()
			s.Limits.track(c, http.StateClosed)
		}()
	}
}

// Close stops accepting, drops every connection (releasing its opens) and
// waits for them.
func (s *Server) Close() error {
	s.mu.Lock()
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// conn is one client connection. Requests are served in order.
type conn struct {
	srv *Server
	nc  net.Conn
	r   *bufio.Reader

	// seq is the CommandSequenceWindow; multiCredit is
	// Connection.SupportsMultiCredit (credits.go).
	seq         seqWindow
	multiCredit bool

	negotiated      bool
	dialect         uint16
	clientGUID      [16]byte
	clientSecMode   uint16
	clientCaps      uint32
	clientDialects  []uint16
	cipher          uint16 // negotiated encryption cipher, 0 for none
	preauth         []byte // connection pre-auth hash (3.1.1)
	async           asyncTable
	sessions        map[uint64]*session
	pendingSessions map[uint64]*session
	// accepted is when the connection came (wall time, as socket
	// deadlines are); loggedOn is set by its first successful logon.
	accepted time.Time
	loggedOn bool
}

func newConn(s *Server, nc net.Conn) *conn {
	return &conn{srv: s, nc: nc, r: bufio.NewReaderSize(nc, 64<<10), sessions: map[uint64]*session{},
		pendingSessions: map[uint64]*session{}, accepted: time.Now()}
}

func (c *conn) serve() {
	defer c.nc.Close()
	defer c.release()
	defer func() {
		if v := recover(); v != nil { // a malformed request drops its connection, not the server
			clock.Log(context.Background(), c.srv.logger, c.srv.clock, slog.LevelError, "smb: request failed",
				"remote", c.nc.RemoteAddr().String(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	for {
		_ = c.nc.SetReadDeadline(c.readDeadline(time.Now()))
		msg, err := c.readFrame()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.srv.logger.Debug("smb: connection ends", "remote", c.nc.RemoteAddr().String(), "err", err)
			}
			return
		}
		out, ok := c.handleFrame(msg)
		if !ok {
			return
		}
		if out == nil {
			continue
		}
		if err := c.writeFrame(out); err != nil {
			return
		}
	}
}

func (c *conn) readFrame() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
	if hdr[0] != 0 || n > maxMessage {
		return nil, errors.New("bad transport frame")
	}
	msg := make([]byte, n)
	_, err := io.ReadFull(c.r, msg)
	return msg, err
}

func (c *conn) writeFrame(msg []byte) error {
	c.async.writer.Lock()
	defer c.async.writer.Unlock()
	out := make([]byte, 4, 4+len(msg))
	out[1], out[2], out[3] = byte(len(msg)>>16), byte(len(msg)>>8), byte(len(msg))
	_, err := c.nc.Write(append(out, msg...))
	return err
}

// release closes every open of the connection: a dropped connection
// leaves no share mode, lock or delete-on-close behind.
func (c *conn) release() {
	for _, s := range c.sessions {
		c.logoff(s)
	}
}

// handleFrame serves one frame: an SMB1 negotiate, or one SMB2 request or
// compound chain. ok false drops the connection.
func (c *conn) handleFrame(msg []byte) (out []byte, ok bool) {
	if len(msg) >= 5 && string(msg[:4]) == "\xFFSMB" && msg[4] == 0x72 {
		return c.smb1Negotiate(msg)
	}
	var ch chain
	if id, encrypted := transformSession(msg); encrypted {
		s := c.sessions[id]
		if s == nil || s.sealer == nil {
			return nil, false
		}
		plain, err := s.sealer.open(msg)
		if err != nil {
			return nil, false
		}
		msg, ch.sealer, ch.sealedFor = plain, s.sealer, id
	}
	for len(msg) > 0 {
		h, valid := parseHeader(msg)
		if !valid || !c.inSequence(h) {
			return nil, false
		}
		one := msg
		if h.next != 0 {
			if int(h.next) > len(msg) || h.next < headerSize {
				return nil, false
			}
			one = msg[:h.next]
		}
		resp, keep := c.dispatch(&ch, h, one)
		if !keep {
			return nil, false
		}
		if resp != nil {
			ch.add(resp.msg, resp.sign)
		}
		if h.next == 0 {
			break
		}
		msg = msg[h.next:]
	}
	out = ch.bytes()
	if ch.sealer != nil && out != nil {
		out = ch.sealer.seal(out, ch.sealedFor)
	}
	return out, true
}

// reply is one response and how to sign it.
type reply struct {
	msg  []byte
	sign *signer
}

// chain joins the responses to a compound request.
type chain struct {
	parts []reply
	// related-operation state carried from the previous request.
	sessionID uint64
	treeID    uint32
	fileID    [16]byte
	// failed is the error of a failed CREATE (or of a chain that starts
	// with a related request): the related requests after it answer it
	// too, as Windows does; other failures do not carry over.
	failed uint32
	// served counts the requests of the chain served so far.
	served int
	// sealer encrypts the responses (unsigned) when the request came in
	// encrypted for the session sealedFor.
	sealer    *sealer
	sealedFor uint64
}

func (ch *chain) add(msg []byte, s *signer) { ch.parts = append(ch.parts, reply{msg, s}) }

func (ch *chain) bytes() []byte {
	if len(ch.parts) == 0 {
		return nil
	}
	var out []byte
	for i, p := range ch.parts {
		m := p.msg
		if i < len(ch.parts)-1 {
			m = align8(m)
			le.PutUint32(m[20:], uint32(len(m)))
		}
		if p.sign != nil && ch.sealer == nil {
			p.sign.sign(m)
		}
		out = append(out, m...)
	}
	return out
}

// request is the context of one request being served.
type request struct {
	h    header
	msg  []byte // the whole message, header included
	body []byte
	sess *session
	tree *tree
	ch   *chain
	// asyncID is set when the request went async (STATUS_PENDING).
	asyncID uint64
}

// dispatch serves one request of a chain and returns its response.
func (c *conn) dispatch(ch *chain, h header, msg []byte) (*reply, bool) {
	first := ch.served == 0
	ch.served++
	related := h.flags&flagRelated != 0
	if related && !first {
		h.sessionID, h.treeID = ch.sessionID, ch.treeID
	}
	if !related {
		ch.fileID = [16]byte{} // an unrelated request starts afresh
	}
	r := &request{h: h, msg: msg, body: msg[headerSize:], ch: ch}
	if h.command == cmdCancel {
		if c.cancelAuthentic(ch, h, msg) {
			c.cancelRequest(h)
		}
		return nil, true
	}
	if h.command == cmdNegotiate {
		return c.negotiate(r)
	}
	if !c.negotiated {
		return nil, false
	}
	if related && first {
		ch.failed = statusInvalidParameter // nothing to be related to
		if s := c.sessions[h.sessionID]; s != nil && s.signer.verify(msg) {
			r.sess = s // the answer is signed like any other
		}
	}
	if related && ch.failed != statusOK {
		return c.errorReply(r, ch.failed), true
	}
	if related && h.sessionID == 0 && h.command != cmdEcho {
		// The request before it named no valid session to carry over.
		return c.errorReply(r, statusInvalidParameter), true
	}
	var status uint32
	var body []byte
	switch h.command {
	case cmdSessionSetup:
		return c.sessionSetup(r)
	case cmdEcho:
		status, body = c.echo(r)
	default:
		if st := c.bind(r); st != statusOK {
			return c.finish(r, st, nil), true
		}
		status, body = c.serveCommand(r)
		if writes[h.command] {
			c.srv.changes.Changed()
		}
	}
	return c.finish(r, status, body), true
}

// bind finds the session and tree of a request and checks its signature.
func (c *conn) bind(r *request) uint32 {
	s := c.sessions[r.h.sessionID]
	if s == nil {
		return statusUserSessionDeleted
	}
	r.sess = s
	if st := c.authentic(r); st != statusOK {
		return st
	}
	if !c.chargeCovers(r.h, r.body) {
		return statusInvalidParameter
	}
	switch r.h.command {
	case cmdLogoff, cmdTreeConnect:
		return statusOK
	}
	t := s.trees[r.h.treeID]
	if t == nil {
		return statusNetworkNameDeleted
	}
	r.tree = t
	return statusOK
}

// writes are the commands that may change what a directory lists.
var writes = map[uint16]bool{cmdCreate: true, cmdClose: true, cmdWrite: true, cmdSetInfo: true}

// minBody is the fixed part of each request body (MS-SMB2 2.2): shorter
// requests are malformed.
var minBody = map[uint16]int{cmdTreeConnect: 8, cmdCreate: 56, cmdClose: 24, cmdFlush: 24, cmdRead: 48,
	cmdWrite: 48, cmdLock: 48, cmdIoctl: 56, cmdQueryDirectory: 32, cmdChangeNotify: 32, cmdQueryInfo: 40, cmdSetInfo: 32}

func (c *conn) serveCommand(r *request) (uint32, []byte) {
	if len(r.body) < minBody[r.h.command] {
		return statusInvalidParameter, nil
	}
	switch r.h.command {
	case cmdLogoff:
		c.logoff(r.sess)
		delete(c.sessions, r.sess.id)
		return statusOK, newBuf(4).u16(0, 4)
	case cmdTreeConnect:
		return c.treeConnect(r)
	case cmdTreeDisconnect:
		c.treeDisconnect(r.sess, r.tree)
		return statusOK, newBuf(4).u16(0, 4)
	case cmdCreate:
		return c.create(r)
	case cmdClose:
		return c.closeFile(r)
	case cmdFlush:
		if _, st := c.openOf(r, 8); st != statusOK {
			return st, nil
		}
		return statusOK, newBuf(4).u16(0, 4)
	case cmdRead:
		return c.read(r)
	case cmdWrite:
		return c.write(r)
	case cmdLock:
		return c.lock(r)
	case cmdIoctl:
		return c.ioctl(r)
	case cmdQueryDirectory:
		return c.queryDirectory(r)
	case cmdQueryInfo:
		return c.queryInfo(r)
	case cmdSetInfo:
		return c.setInfo(r)
	case cmdChangeNotify:
		return c.changeNotify(r)
	case cmdOplockBreak:
		return statusNotSupported, nil // no oplocks are granted
	}
	return statusInvalidParameter, nil // not an SMB2 command
}

// finish builds the response to r, signed when the request was signed or
// the session requires signing, and records the chain state.
func (c *conn) finish(r *request, status uint32, body []byte) *reply {
	r.ch.sessionID, r.ch.treeID = 0, 0
	if r.sess != nil {
		r.ch.sessionID = r.h.sessionID
	}
	if r.tree != nil {
		r.ch.treeID = r.h.treeID
	}
	if r.h.command == cmdCreate {
		r.ch.failed = status
	}
	// Errors carry the error body; success and warning statuses (as
	// STATUS_NOTIFY_ENUM_DIR) and BUFFER_TOO_SMALL with its size carry the
	// command's own.
	keep := body != nil && (status < 0x80000000 || status == statusBufferTooSmall)
	if status != statusOK && status != statusBufferOverflow && !keep {
		body = errorBody()
	}
	msg := response(r.h, status, c.credits(r.h), body)
	if status == statusPending {
		return &reply{msg: asyncHeader(msg, r.asyncID)} // interim responses are not signed
	}
	var sign *signer
	if r.sess != nil && r.sess.valid && (r.h.flags&flagSigned != 0 || r.sess.signingRequired) {
		sign = &r.sess.signer
	}
	return &reply{msg: msg, sign: sign}
}

func (c *conn) errorReply(r *request, status uint32) *reply {
	return c.finish(r, status, nil)
}

func (c *conn) ctx() context.Context { return context.Background() }
