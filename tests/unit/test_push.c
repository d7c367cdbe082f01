/* push/: the labels Pyroscope takes, and the -o pattern of windows. */
#include <string.h>
#include "test.h"
#include "push/ingest.h"
#include "push/windows.h"

TEST(push_label_ok)
{
	char why[96];

	CHECK_INT(ingest_label_ok("env=prod", why, sizeof(why)), 0);
	CHECK_INT(ingest_label_ok("k8s.pod_name=api-7f9c/1", why, sizeof(why)), 0);
	CHECK(ingest_label_ok("env", why, sizeof(why)) < 0);
	CHECK_STR(why, "expected KEY=VALUE");
	CHECK(ingest_label_ok("=x", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("env=", why, sizeof(why)) < 0);
	CHECK_STR(why, "empty value");
	CHECK(ingest_label_ok("1env=x", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("e-nv=x", why, sizeof(why)) < 0);
	/* what would break the name SERVICE.cpu{k=v,k=v} */
	CHECK(ingest_label_ok("env=a,b", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("env=a}b", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("env=a=b", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("env=a\"b", why, sizeof(why)) < 0);
	CHECK(ingest_label_ok("env=a\nb", why, sizeof(why)) < 0);
	{
		char big[300];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		big[3] = '=';
		CHECK(ingest_label_ok(big, why, sizeof(why)) < 0);
	}
}

TEST(push_window_pattern)
{
	/* with a time conversion, in a directory that exists */
	CHECK_INT(windows_check_pattern("/tmp/cpu-%Y%m%dT%H%M%S.pb.gz"), 0);
	CHECK_INT(windows_check_pattern("cpu-%s.pb.gz"), 0);
}
