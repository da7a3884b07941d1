"""The write path: entries onto the memory branch, one at a time (`append`) or
streamed in bulk for import (`bulk`, its items made ready by `bulk_items`)."""
