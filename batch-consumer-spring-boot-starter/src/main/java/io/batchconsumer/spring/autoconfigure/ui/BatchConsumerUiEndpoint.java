package io.batchconsumer.spring.autoconfigure.ui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The ledger page: {@code GET /actuator/batchconsumerui} returns one self-contained HTML page (its
 * style and script inline, nothing fetched from elsewhere, so it works offline) that reads the
 * {@code batchconsumer} endpoint beside it every second and shows, per listener and partition, the
 * committed and fetched offsets, the open thread batches with the state of each slice, the batch
 * that holds the watermark and for how long, flow control and why, and a chart of throughput and
 * commit lag since the page was opened (the last five minutes).
 *
 * <p>As an Actuator web endpoint it lives under the Actuator base path, with its exposure and
 * access rules and whatever security protects the other endpoints ({@code EndpointRequest}
 * matchers include it).
 *
 * <p>Threading: stateless; the page is read once, at construction.
 */
@WebEndpoint(id = "batchconsumerui", defaultAccess = Access.READ_ONLY)
public class BatchConsumerUiEndpoint {

	static final String PAGE = "ledger.html";

	private final String page;

	/** Creates the endpoint, reading the page from the class path. */
	public BatchConsumerUiEndpoint() {
		try (InputStream in = BatchConsumerUiEndpoint.class.getResourceAsStream(PAGE)) {
			if (in == null) {
				throw new IllegalStateException("The ledger page " + PAGE + " is missing from the class path");
			}
			this.page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The page.
	 * @return the HTML
	 */
	@ReadOperation(produces = "text/html;charset=UTF-8")
	public String page() {
		return this.page;
	}

}
