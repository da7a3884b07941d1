"""The index's build side: a full build (`full`), rows in and out as the branch changes
(`update`), the fold's results written in (`refold`), read-only sources' rows (`overlay`)."""
