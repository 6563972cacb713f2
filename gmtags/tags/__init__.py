"""Finding tags in a response, parsing them, and writing receipts."""
