"""Hold SMB opens for the REST x SMB matrix test.

usage: hold.py PORT KEY SPEC...   where SPEC is NAME:ACCESS:SHARE[:pending|:doc]
Opens every NAME (share "share", dialect 3.0, impacket) with the access
mask ACCESS and share mode SHARE (hex), optionally marking it delete-
pending (SET_INFO FileDispositionInformation) or delete-on-close. Prints
"ready" when all are open, or "error NAME STATUS" for an open that fails;
closes everything when stdin closes.
"""
import sys

from impacket import smb3structs as s3
from impacket.smbconnection import SMBConnection, SessionError


def main():
    port, key, specs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    conn = SMBConnection('127.0.0.1', '127.0.0.1', sess_port=port, preferredDialect=0x300)
    conn.login('devstoreaccount1', key, domain='ANY')
    tree = conn.connectTree('share')
    fids = []
    for spec in specs:
        parts = spec.split(':')
        name, access, share = parts[0], int(parts[1], 16), int(parts[2], 16)
        mode = parts[3] if len(parts) > 3 else ''
        options = s3.FILE_NON_DIRECTORY_FILE
        if mode == 'doc':
            options |= s3.FILE_DELETE_ON_CLOSE
        try:
            fid = conn.createFile(tree, name, desiredAccess=access, shareMode=share,
                                  creationOption=options, creationDisposition=s3.FILE_OPEN)
            if mode == 'pending':
                conn._SMBConnection.setInfo(tree, fid, inputBlob=b'\x01', infoType=s3.SMB2_0_INFO_FILE,
                                             fileInfoClass=s3.SMB2_FILE_DISPOSITION_INFO)
        except SessionError as e:
            print('error', name, e.getErrorString()[0], flush=True)
            continue
        fids.append(fid)
    print('ready', flush=True)
    sys.stdin.read()
    for fid in fids:
        conn.closeFile(tree, fid)
    conn.logoff()


main()
