package smb

// SignMessage signs msg as a session of dialect (below 3.1.1) with
// sessionKey does, for the raw-wire tests' client.
func SignMessage(dialect uint16, sessionKey, msg []byte) {
	newSigner(dialect, sessionKey, nil).sign(msg)
}
