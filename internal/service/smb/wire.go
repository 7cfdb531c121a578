package smb

import (
	"encoding/binary"
	"time"
)

// Dialects.
const (
	dialect202      = 0x0202
	dialect210      = 0x0210
	dialect300      = 0x0300
	dialect302      = 0x0302
	dialect311      = 0x0311
	dialectWildcard = 0x02FF
)

// offered lists the dialects the server speaks, best first.
var offered = []uint16{dialect311, dialect302, dialect300, dialect210, dialect202}

// Commands.
const (
	cmdNegotiate = iota
	cmdSessionSetup
	cmdLogoff
	cmdTreeConnect
	cmdTreeDisconnect
	cmdCreate
	cmdClose
	cmdFlush
	cmdRead
	cmdWrite
	cmdLock
	cmdIoctl
	cmdCancel
	cmdEcho
	cmdQueryDirectory
	cmdChangeNotify
	cmdQueryInfo
	cmdSetInfo
	cmdOplockBreak
)

// Header flags.
const (
	flagResponse = 0x1
	flagAsync    = 0x2
	flagRelated  = 0x4
	flagSigned   = 0x8
)

const headerSize = 64

// NTSTATUS values the server answers with.
const (
	statusOK                    = 0x00000000
	statusPending               = 0x00000103
	statusNoMoreFiles           = 0x80000006
	statusBufferOverflow        = 0x80000005
	statusNotImplemented        = 0xC0000002
	statusInfoLengthMismatch    = 0xC0000004
	statusInvalidParameter      = 0xC000000D
	statusNoSuchFile            = 0xC000000F
	statusInvalidDeviceRequest  = 0xC0000010
	statusEndOfFile             = 0xC0000011
	statusMoreProcessing        = 0xC0000016
	statusAccessDenied          = 0xC0000022
	statusBufferTooSmall        = 0xC0000023
	statusObjectNameInvalid     = 0xC0000033
	statusObjectNameNotFound    = 0xC0000034
	statusObjectNameCollision   = 0xC0000035
	statusObjectPathNotFound    = 0xC000003A
	statusSharingViolation      = 0xC0000043
	statusFileLockConflict      = 0xC0000054
	statusLockNotGranted        = 0xC0000055
	statusDeletePending         = 0xC0000056
	statusLogonFailure          = 0xC000006D
	statusInsufficientResources = 0xC000009A
	statusRangeNotLocked        = 0xC000007E
	statusDiskFull              = 0xC000007F
	statusFileIsADirectory      = 0xC00000BA
	statusNotSupported          = 0xC00000BB
	statusBadNetworkName        = 0xC00000CC
	statusDirectoryNotEmpty     = 0xC0000101
	statusNotADirectory         = 0xC0000103
	statusCancelled             = 0xC0000120
	statusCannotDelete          = 0xC0000121
	statusFileClosed            = 0xC0000128
	statusUserSessionDeleted    = 0xC0000203
	statusNotFound              = 0xC0000225
	statusInvalidInfoClass      = 0xC0000003
	statusInvalidLockRange      = 0xC00001A1
	statusNetworkNameDeleted    = 0xC00000C9
	statusNoPreauthHashOverlap  = 0xC05D0000
)

var le = binary.LittleEndian

// header is the decoded SMB2 header of a request.
type header struct {
	creditCharge uint16
	command      uint16
	credits      uint16
	flags        uint32
	next         uint32
	messageID    uint64
	asyncID      uint64
	treeID       uint32
	sessionID    uint64
}

func parseHeader(b []byte) (header, bool) {
	if len(b) < headerSize || b[0] != 0xFE || string(b[1:4]) != "SMB" {
		return header{}, false
	}
	h := header{creditCharge: le.Uint16(b[6:]), command: le.Uint16(b[12:]), credits: le.Uint16(b[14:]),
		flags: le.Uint32(b[16:]), next: le.Uint32(b[20:]), messageID: le.Uint64(b[24:]),
		treeID: le.Uint32(b[36:]), sessionID: le.Uint64(b[40:])}
	if h.flags&flagAsync != 0 {
		h.asyncID = le.Uint64(b[32:])
	}
	return h, true
}

// response builds a response message: the header answering req, then body.
func response(req header, status uint32, credits uint16, body []byte) []byte {
	msg := make([]byte, headerSize, headerSize+len(body))
	copy(msg, "\xFESMB")
	le.PutUint16(msg[4:], headerSize)
	le.PutUint16(msg[6:], req.creditCharge)
	le.PutUint32(msg[8:], status)
	le.PutUint16(msg[12:], req.command)
	le.PutUint16(msg[14:], credits)
	le.PutUint32(msg[16:], flagResponse|req.flags&flagRelated)
	le.PutUint64(msg[24:], req.messageID)
	le.PutUint32(msg[36:], req.treeID)
	le.PutUint64(msg[40:], req.sessionID)
	return append(msg, body...)
}

// errorBody is the body of an error response (MS-SMB2 2.2.2).
func errorBody() []byte { return []byte{9, 0, 0, 0, 0, 0, 0, 0, 0} }

// buf is a little-endian body builder with fixed-offset fields.
type buf []byte

func newBuf(size int) buf { return make(buf, size) }

func (b buf) u16(at int, v uint16) buf { le.PutUint16(b[at:], v); return b }
func (b buf) u32(at int, v uint32) buf { le.PutUint32(b[at:], v); return b }
func (b buf) u64(at int, v uint64) buf { le.PutUint64(b[at:], v); return b }
func (b buf) ft(at int, t time.Time) buf {
	le.PutUint64(b[at:], filetime(t))
	return b
}

// slice returns length bytes at a header-relative offset of msg, or nil.
func slice(msg []byte, off, length int) []byte {
	if off < 0 || length < 0 || off+length > len(msg) {
		return nil
	}
	return msg[off : off+length]
}

// align8 pads b to a multiple of 8 bytes.
func align8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}
