"""Log on with impacket's default negotiate (an SMB1 NEGOTIATE offering
"SMB 2.???", answered with the SMB2 wildcard dialect), write, list and
read back a file, and print the dialect and what was read.

usage: smb1upgrade.py PORT KEY
"""
import io
import sys

from impacket.smbconnection import SMBConnection


def main():
    port, key = int(sys.argv[1]), sys.argv[2]
    conn = SMBConnection('127.0.0.1', '127.0.0.1', sess_port=port)
    conn.login('devstoreaccount1', key, domain='WORKGROUP')
    conn.putFile('share', 'impacket.txt', io.BytesIO(b'from impacket').read)
    names = sorted(f.get_longname() for f in conn.listPath('share', '*'))
    out = io.BytesIO()
    conn.getFile('share', 'impacket.txt', out.write)
    print(hex(conn.getDialect()), ','.join(names), out.getvalue().decode())
    conn.logoff()


main()
