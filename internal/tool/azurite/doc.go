// Package azurite imports an Azurite workspace (the folder Azurite's
// --location names) into a Lazuli store: its LokiJS databases
// (__azurite_db_blob__.json, __azurite_db_queue__.json,
// __azurite_db_table__.json and the two extent catalogues) and the
// extent files under __blobstorage__ and __queuestorage__ that they point
// into. Azurite's files are only read.
//
// Everything is read and every content range is copied into the extent
// engine before a single store transaction writes the records, through
// each service's own import helpers (blob.ImportBlob, queue.ImportMessage,
// table.ImportEntity), so a workspace that cannot be read whole is
// refused with an error naming what could not be read and leaves no
// records behind (copied extents are unreferenced and collected).
package azurite
