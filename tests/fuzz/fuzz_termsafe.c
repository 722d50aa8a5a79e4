/* The visible form of outside text: whatever goes in, what comes out is
 * safe for a terminal, measured consistently, and the same through the
 * filtering stream in any pieces. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t len, slen, cut = size ? data[0] % (size + 1) : 0;
	char *out = termsafe_escape(in, size, 0, &len), *kept, *streamed = NULL;
	FILE *mem, *f;

	if (!out)
		return 0;
	/* nothing left to escape: no control, no DEL, no C1, valid UTF-8 */
	if (strlen(out) != len || termsafe_needed(out, len))
		abort();
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	/* escaping is idempotent, and safe text passes unchanged */
	{
		size_t len2;
		char *again = termsafe_escape(out, len, 0, &len2);

		if (!again || len2 != len || memcmp(again, out, len) != 0)
			abort();
		free(again);
	}
	if (!termsafe_needed(in, size) && (len != size || memcmp(out, in, size) != 0))
		abort();
	/* fitting never cuts a character and never exceeds the columns */
	for (size_t cols = 0; cols < 8; cols++) {
		size_t n = termsafe_fit(out, len, cols);

		if (n > len || termsafe_width(out, n) > cols || termsafe_needed(out, n))
			abort();
	}
	/* the stream gives what one escape with newlines kept gives, however the
	 * bytes are cut */
	kept = termsafe_escape(in, size, TERMSAFE_KEEP_NEWLINE, NULL);
	mem = open_memstream(&streamed, &slen);
	f = mem ? termsafe_stream(mem) : NULL;
	if (kept && f) {
		fwrite(in, 1, cut, f);
		fflush(f);
		fwrite(in + cut, 1, size - cut, f);
		fclose(f);
		fclose(mem);
		if (slen != strlen(kept) || memcmp(streamed, kept, slen) != 0)
			abort();
	} else {
		if (f)
			fclose(f);
		if (mem)
			fclose(mem);
	}
	free(streamed);
	free(kept);
	free(out);
	return 0;
}
