"""The index's write side: catching up, full builds, rows in and out, the fold's results."""
