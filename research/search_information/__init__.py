"""What hidden information is worth to the compiled search in Tet Hsi (see ``research/FINDINGS.md``)."""
