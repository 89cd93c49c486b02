"""Text tools every layer may use: words, sentences and markup of plain text, French glossing, and checks for
untrusted strings.
"""
