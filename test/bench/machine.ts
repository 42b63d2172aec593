/** What the figures were measured on: ratios travel between machines, absolute times do not. */
import { cpus, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
	cpuModel: string;
	cores: number;
	node: string;
	os: string;
	memoryGiB: number;
	/** 1-minute load average when the run started: a busy machine makes every figure noisier. */
	loadAverageAtStart: number;
}

export function describeMachine(): MachineInfo {
	const processors = cpus();
	return {
		cpuModel: processors[0]?.model.trim() ?? 'unknown',
		cores: processors.length,
		node: process.version,
		os: `${process.platform} ${release()} ${process.arch}`,
		memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
		loadAverageAtStart: Math.round(loadavg()[0] * 100) / 100,
	};
}

export function machineLine(machine: MachineInfo): string {
	return `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, load ${machine.loadAverageAtStart} at start`;
}
