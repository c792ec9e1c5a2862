package io.distlock.benchmark;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A deliberately non-atomic counter in a memory-mapped file, which every JVM on the machine sees:
 * the exclusion check across processes. Read, run the section, write the read value plus one;
 * two holders at once lose an increment.
 */
final class SharedCounter implements AutoCloseable {

	private final FileChannel channel;

	private final MappedByteBuffer buffer;

	SharedCounter(Path file) throws IOException {
		this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE);
		this.buffer = this.channel.map(FileChannel.MapMode.READ_WRITE, 0, Integer.BYTES);
	}

	int read() {
		return this.buffer.getInt(0);
	}

	void write(int value) {
		this.buffer.putInt(0, value);
	}

	@Override
	public void close() throws IOException {
		this.channel.close();
	}

}
