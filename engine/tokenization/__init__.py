"""Text to token ids and back: the ``tokenizer`` (a ``tokenizers`` pipeline from ``tokenizer.json`` or GGUF
metadata), the ``chat_template`` rendered as Hugging Face renders it, and the streaming ``detokenizer`` that never
splits a UTF-8 character and applies stop strings on the text stream.
"""
