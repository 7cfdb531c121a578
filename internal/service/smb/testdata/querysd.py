"""Print, in hex, the security descriptor (owner, group, DACL) of a file.

usage: querysd.py PORT KEY NAME
"""
import sys

from impacket import smb3structs as s3
from impacket.smbconnection import SMBConnection


def main():
    port, key, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    conn = SMBConnection('127.0.0.1', '127.0.0.1', sess_port=port, preferredDialect=0x300)
    conn.login('devstoreaccount1', key)
    tree = conn.connectTree('share')
    fid = conn.createFile(tree, name, desiredAccess=s3.READ_CONTROL, shareMode=7, creationDisposition=s3.FILE_OPEN)
    sd = conn._SMBConnection.queryInfo(tree, fid, infoType=s3.SMB2_0_INFO_SECURITY, fileInfoClass=0,
                                       additionalInformation=0x7)
    print(sd.hex())
    conn.closeFile(tree, fid)
    conn.logoff()


main()
