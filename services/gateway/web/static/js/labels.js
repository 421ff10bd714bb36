// Korean names for the protocol's codes; an unknown code is shown as it came.

const INTENTS = {
  LEGAL_CONSULT: "법률 상담",
  MARKET_INQUIRY: "시세 문의",
  LOAN_CONSULT: "대출 상담",
  CONTRACT_CREATION: "계약서 작성",
  CONTRACT_REVIEW: "계약서 검토",
  COMPREHENSIVE: "종합 상담",
  RISK_ANALYSIS: "위험 분석",
  UNCLEAR: "질문 확인 필요",
  IRRELEVANT: "일반 대화",
};
const TEAMS = { search: "검색", analysis: "분석", document: "문서" };
const STRATEGIES = { sequential: "순차 실행", parallel: "동시 실행", dag: "의존 순서 실행" };
export const STATUSES = {
  pending: "대기",
  in_progress: "진행 중",
  completed: "완료",
  failed: "실패",
  skipped: "건너뜀",
};

export const intentLabel = (code) => INTENTS[code] ?? String(code ?? "");
export const teamLabel = (code) => TEAMS[code] ?? String(code ?? "");
export const strategyLabel = (code) => STRATEGIES[code] ?? String(code ?? "");
export const statusLabel = (code) => STATUSES[code] ?? String(code ?? "");
